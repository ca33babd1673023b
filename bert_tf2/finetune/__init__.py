"""One fine-tuning driver for every task (issue 26).

A script turns its flags into `Settings` once, builds its task's `Job` and
hands it to `driver.run`; the driver owns the lifecycle (strategy start,
checks, assets, records, Estimator, training with or without periodic
evaluation, evaluation, prediction, export). See docs/finetuning.md.
"""

from bert_tf2.finetune import recorded_flags
from bert_tf2.finetune.job import Job
from bert_tf2.finetune.settings import Settings
from bert_tf2.finetune.settings import settings_with_defaults


def run_settings(flag_values, required=()):
  """A fine-tuning script's `Settings`: its parsed flags, those not given
  taken from a finished run in --output_dir (`recorded_flags.fill`); each
  of `required` given or recorded.

  Raises:
    InputError: a required flag missing; a damaged or mismatched record.
  """
  settings = recorded_flags.fill(Settings.from_flags(flag_values))
  recorded_flags.check_required(settings, required)
  return settings
