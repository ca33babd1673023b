"""What run_squad.py does, settings in, files out: `squad.job.SquadJob` on
the fine-tuning driver.

Outputs in --output_dir, as the original: train.tf_record, checkpoints
model.ckpt-STEP, eval.tf_record, predictions.json, nbest_predictions.json
and (SQuAD 2.0) null_odds.json; with --eval_every_n_steps also
eval_history.jsonl, eval_results.txt (and best/, early_stopping.json);
with --export_dir a SavedModel. `run(settings)`: settings from
`finetune.Settings.from_flags` in the script, `default_options(...)` in
tests.
"""

from bert_tf2.finetune import driver
from bert_tf2.finetune.settings import settings_with_defaults
from bert_tf2.squad import flags as squad_flags
from bert_tf2.squad.job import SquadJob


def default_options(**overrides):
  """run_squad.py's settings with the defaults `squad.flags` declares.

  Example:
    >>> default_options(doc_stride=64).doc_stride
    64
  """
  return settings_with_defaults(squad_flags.define_flags, **overrides)


def run(o):
  """The whole of run_squad.py for the settings `o`.

  Returns:
    dict with "num_train_steps" and "predictions" ({qas_id: text}; None
    when not run).
  """
  job = SquadJob(o)
  driver.run(job)
  return {"num_train_steps": job.num_train_steps,
          "predictions": job.predictions}
