"""What `run_ner.py` does, settings in, files out.

  validate -> CoNLL sentences -> windows -> {train,eval,predict}.tf_record
  -> runner.Estimator -> model.ckpt-STEP, label_list.txt,
  eval_results.txt + eval_predictions.txt (dev), test_predictions.txt
  (+ test_results.txt when the test file has tags) [-> SavedModel]

Predictions files are CoNLL: `token gold predicted` per line (gold `-`
when the file had no tags), a blank line between sentences, the format
conlleval.pl reads. `run(settings)` runs `ner.job.NerJob` on the
fine-tuning driver (settings: `finetune.Settings.from_flags` in the script,
`default_options(...)` in tests).
"""

from bert_tf2.finetune import driver
from bert_tf2.finetune.settings import settings_with_defaults
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner.job import NerJob


def default_options(**overrides):
  """The script's settings with the defaults `ner.flags` declares.

  Example:
    >>> default_options(doc_stride=32).doc_stride
    32
  """
  return settings_with_defaults(ner_flags.define_flags, **overrides)


def run(o):
  """Runs training / eval / predict / export as the settings `o` say."""
  return driver.run(NerJob(o))
