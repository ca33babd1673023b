"""What `run_classifier.py` does, settings in, files out.

  validate -> examples -> {train,eval,predict}.tf_record -> runner.Estimator
  -> model.ckpt-STEP, eval_results.txt, test_results.tsv [-> SavedModel]

Single-label tasks run as `ClassifierJob` on the fine-tuning driver,
multi-label ones as `multi_label.MultiLabelJob`.
"""

from bert_tf2.classifier import multi_label
from bert_tf2.classifier.job import ClassifierJob
from bert_tf2.finetune import driver


def run(o):
  """Runs training / eval / predict / export as the settings `o` say."""
  job = (multi_label.MultiLabelJob if multi_label.is_multi_label(o)
         else ClassifierJob)
  return driver.run(job(o))
