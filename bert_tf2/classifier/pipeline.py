"""What `run_classifier.py` does, settings in, files out.

  validate -> examples -> {train,eval,predict}.tf_record -> runner.Estimator
  -> model.ckpt-STEP, eval_results.txt, test_results.tsv [-> SavedModel]

`run(settings)` takes the script's settings (`finetune.Settings.from_flags`
in the script, `default_options(...)` in tests). Single-label tasks run as
`classifier.job.ClassifierJob` on the fine-tuning driver; multi-label ones
(--label_column=a,b,c or --multi_label_delimiter) see multi_label.py.
"""

from bert_tf2 import runner
from bert_tf2.classifier import multi_label
from bert_tf2.classifier.job import ClassifierJob
from bert_tf2.classifier.job import pearson  # pylint: disable=unused-import
from bert_tf2.classifier.job import trim_padding_enabled  # pylint: disable=unused-import
from bert_tf2.classifier.job import write_test_results
from bert_tf2.classifier.options import default_options  # pylint: disable=unused-import
from bert_tf2.classifier.options import generic_options
from bert_tf2.classifier.options import validate
from bert_tf2.finetune import driver
from bert_tf2.runner.checkpoints import refuse_other_model


def _run_multi_label(o, bert_config, tokenizer):
  """--label_column=a,b,c or --multi_label_delimiter: see multi_label.py."""
  config = runner.run_config_from_flags(o, runner.strategy_from_FLAGS(o))

  def make_estimator(task, num_train_steps):
    refuse_other_model(o.output_dir, task)
    warmup = int((num_train_steps or 0) * o.warmup_proportion)
    return runner.estimator_from_flags(task, config, o, num_train_steps,
                                       warmup)
  multi_label.run(o, bert_config, tokenizer, generic_options(o),
                  make_estimator, runner.write_eval_results,
                  write_test_results)


def run(o):
  """Runs training / eval / predict / export as the settings `o` say."""
  if multi_label.is_multi_label(o):
    runner.start_strategy(o)  # Before any other TensorFlow op.
    bert_config, tokenizer = validate(o)
    driver.check_export_flags(o)
    return _run_multi_label(o, bert_config, tokenizer)
  return driver.run(ClassifierJob(o))
