"""One fine-tuning driver for every task (issue 26).

A script turns its flags into `Settings` once, builds its task's `Job` and
hands it to `driver.run`; the driver owns the lifecycle (strategy start,
checks, assets, records, Estimator, training with or without periodic
evaluation, evaluation, prediction, export). See docs/finetuning.md.
"""

from bert_tf2.finetune.job import Job
from bert_tf2.finetune.settings import Settings
from bert_tf2.finetune.settings import settings_with_defaults
