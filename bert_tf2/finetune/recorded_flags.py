"""A finished run's flags, read back: `--do_predict --output_dir=<run>` alone.

A fine-tuning script records, in its output_dir's model.json (section
"flags", `bert_tf2.common.artifact`), every flag of its own that defines
the run, not those of one invocation (`PER_INVOCATION`). A later run of
the same script on that output_dir that does not train takes every flag
it is not given from the record, and the config and vocabulary from the
run's copies, so

    python run_classifier.py --do_predict --output_dir=/tmp/mrpc_output

predicts as the run did. A given flag that would build another model
than the record's is one InputError line (`check_model_record`).

Example:
  >>> from bert_tf2.finetune.settings import Settings
  >>> s = Settings(output_dir="/run", do_predict=True, max_seq_length=128,
  ...              vocab_file=None, bert_config_file=None)
  >>> sorted(recordable(s))
  ['max_seq_length']
"""

import os

from bert_tf2.common import InputError
from bert_tf2.common import artifact

# Flags of one invocation: never recorded, never taken from a record (a
# finished run predicts with the checkpoint model.json names).
PER_INVOCATION = frozenset([
    "do_train", "do_eval", "do_predict", "output_dir", "export_dir",
    "init_checkpoint", "use_tpu", "tpu_name", "tpu_zone", "gcp_project",
    "master", "num_tpu_cores", "strategy", "worker_timeout_secs",
    "iterations_per_loop", "allow_new_batch_shape", "skip_consumed_batches",
    "eval_every_n_steps", "early_stopping_metric", "early_stopping_mode",
    "early_stopping_patience", "keep_best_checkpoint"])
# Files the record holds copies of: model.json's "config", "vocabulary".
_COPIED = {"bert_config_file": "config_file", "vocab_file": "vocab_file"}
# Values the record can hold (JSON).
_PLAIN_TYPES = (str, int, float, bool, type(None))


def recordable(settings):
  """{flag: value} of `settings` that model.json records (see module)."""
  values = {}
  # vars(): looking at every value is not reading it (`Settings.unread`).
  for name, value in sorted(vars(settings).items()):
    if name in PER_INVOCATION or name in _COPIED:
      continue
    if isinstance(value, (list, tuple)):
      values[name] = list(value)
    elif isinstance(value, _PLAIN_TYPES):
      values[name] = value
  return values


def finished_run(settings):
  """The `artifact.Artifact` of the finished run in --output_dir that this
  invocation continues without training, or None (it trains, or there is
  no record)."""
  output_dir = getattr(settings, "output_dir", None)
  if (getattr(settings, "do_train", False) or not output_dir or
      not artifact.exists(output_dir)):
    return None
  return artifact.read(output_dir)


def fill(settings):
  """`settings` with every flag not given taken from the finished run's
  record, config and vocabulary its copies (`settings`: no finished run).

  Raises:
    InputError: the record is damaged; a record of another kind of run; a
      --bert_config_file or --vocab_file given that is not the run's.
  """
  found = finished_run(settings)
  if found is None or found.flags is None:
    return settings
  given = settings.given()
  changes = {}
  for name, value in found.flags.items():
    if name in PER_INVOCATION or name not in settings.fields():
      raise InputError("%s: \"flags\" records %r, which is not a flag of "
                       "this script: a record of another kind of run"
                       % (os.path.join(found.directory, artifact.FILE), name))
    if name not in given:
      changes[name] = value
  for name, field in _COPIED.items():
    copy = getattr(found, field)
    if name not in settings.fields() or copy is None:
      continue
    if name in given and vars(settings)[name]:
      _check_same_file(name, vars(settings)[name], copy)
    changes[name] = copy
  return settings.replace(**changes)


def _check_same_file(flag, given, copy):
  """Refuses --<flag>=given unless it holds the run's copy's bytes."""
  try:
    same = artifact.read_bytes(given, flag) == artifact.read_bytes(copy, flag)
  except InputError:
    same = False
  if not same:
    raise InputError("--%s=%s is not the file the run in %s was trained "
                     "with (its copy: %s); leave the flag out to use it"
                     % (flag, given, os.path.dirname(copy), copy))


def check_model_record(job, found, record):
  """Refuses, in one line, an invocation on a finished run (`found`)
  whose flags build another model (`record`, the job's `model_record()`
  after its prepare) than model.json records.

  Raises:
    InputError: naming the given flags that differ from the recorded ones
      (with none, the sections the recorded flags do not rebuild).
  """
  settings = job.settings
  if found is None or found.flags is None or record is None:
    return
  path = os.path.join(found.directory, artifact.FILE)
  differs = [name for name in ("preprocessor", "model", "outputs")
             if dict(record.get(name) or {}) != getattr(found, name)]
  if not differs and record.get("task") == found.task:
    return
  values = vars(settings)  # Not reads (see `recordable`).
  given = _culprits(job, record, sorted(
      name for name in settings.given()
      if name in found.flags and values[name] != found.flags[name]
  ), found.flags)
  if given:
    raise InputError("%s records %s; given %s, which builds another model "
                     "than the run's: leave %s out, or train a new run" % (
                         path, ", ".join("--%s=%s" % (n, found.flags[n])
                                         for n in given),
                         ", ".join("--%s=%s" % (n, values[n])
                                   for n in given),
                         "them" if len(given) > 1 else "it"))
  raise InputError("%s is damaged: its \"flags\" do not rebuild its %s; "
                   "rerun the training script on this --output_dir to "
                   "rewrite it" % (path, " and ".join(differs)))


def _culprits(job, record, names, recorded):
  """The flags among `names` that change job.model_record() (`record`)
  when each alone is set back to its recorded value; else all of them."""
  settings, found = job.settings, []
  try:
    for name in names:
      job.settings = settings.replace(**{name: recorded[name]})
      if job.model_record() != record:
        found.append(name)
  finally:
    job.settings = settings
  return found or names


def check_required(settings, required):
  """Refuses, in one line, a required flag that is neither given nor
  recorded by a finished run in --output_dir."""
  for name in required:
    if getattr(settings, name, None) in (None, ""):
      raise InputError("--%s is required (or --output_dir of a finished "
                       "run whose model.json records it)" % name)
