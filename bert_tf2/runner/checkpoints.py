"""Checkpoint bookkeeping for the runner (writing is modeling's writer).

Checkpoints are `output_dir/model.ckpt-STEP` in the original TF1 format and
names: the model's variables, "<name>/adam_m", "<name>/adam_v",
"global_step" (int64) and, for float16 runs, the loss-scale state.
"""

import json
import os
import re

from absl import logging
import tensorflow as tf

from bert_tf2.common import atomic_write_text
from bert_tf2.common import InputError
import modeling
from modeling import literal_paths

_STEP_RE = re.compile(r"model\.ckpt-(\d+)\.index$")

# {"train_batch_size": B, "max_seq_length": L} of the run that saved the
# checkpoints (a side file: the checkpoints keep the original's variables).
BATCH_SHAPE_FILE = "batch_shape.json"
_SHAPE_FLAGS = ("train_batch_size", "max_seq_length")


def checkpoint_step(prefix):
  """The STEP of ".../model.ckpt-STEP", or None."""
  m = re.search(r"-(\d+)$", prefix or "")
  return int(m.group(1)) if m else None


def _signature(prefix):
  """(path, size, mtime) of each file of `prefix` (changes on a rewrite)."""
  sig = []
  files = literal_paths.checkpoint_files(prefix)
  if not files or not files[0].endswith(".index"):
    return None
  for path in files:
    try:
      stat = tf.io.gfile.stat(path)
    except tf.errors.OpError:
      return None
    sig.append((path, stat.length, stat.mtime_nsec))
  return tuple(sig)


# {prefix: (signature, error)}: a checkpoint is read in full once per
# process, not at every latest_checkpoint() call (the runner asks often).
_VERIFIED = {}
_WARNED = set()


def checkpoint_error(prefix):
  """Why checkpoint `prefix` cannot be used, or None if it can.

  Reads every tensor (TensorFlow's reader checks the index's and each
  tensor's checksums); every floating-point tensor must be finite.

  Returns:
    None, or a phrase to follow the checkpoint's name: "is damaged: ..." or
    "holds NaN or Inf in ..." (`modeling.non_finite_phrase`).
  """
  sig = _signature(prefix)
  cached = _VERIFIED.get(prefix)
  if sig is not None and cached is not None and cached[0] == sig:
    return cached[1]
  try:
    reader = literal_paths.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    non_finite = [name for name in sorted(shapes)
                  if not modeling.is_finite_array(reader.get_tensor(name))]
    error = (modeling.non_finite_phrase(non_finite, len(shapes))
             if non_finite else None)
  # The reader raises OpError (DataLoss, bad magic), IndexError ("Read less
  # bytes than requested") or ValueError, depending on where the damage is.
  except (tf.errors.OpError, IndexError, ValueError, RuntimeError) as e:
    error = "is damaged: " + literal_paths.real_text(
        (str(e).strip().splitlines() or [type(e).__name__])[0])
  if sig is not None:
    _VERIFIED[prefix] = (sig, error)
  return error


def _candidates(output_dir):
  """{prefix: step} of the checkpoints in output_dir (those with an index)."""
  candidates = {}
  try:
    listed = literal_paths.listed_checkpoint(output_dir)
  except ValueError as e:
    if str(e) not in _WARNED:
      _WARNED.add(str(e))
      logging.warning("Ignoring the damaged checkpoint state file (the "
                      "checkpoints are found by their names): %s", e)
    listed = None
  if listed:
    candidates[listed] = checkpoint_step(listed) or -1
  for name in tf.io.gfile.listdir(output_dir):
    m = _STEP_RE.match(name)
    if m:
      candidates[os.path.join(output_dir, name[:-len(".index")])] = int(
          m.group(1))
  return sorted(candidates, key=lambda p: (candidates[p], p == listed),
                reverse=True)


def latest_checkpoint(output_dir):
  """The newest READABLE checkpoint prefix in output_dir, or None.

  Uses the `checkpoint` state file and also scans for `model.ckpt-N.index`
  files, so a missing, stale or damaged state file loses no checkpoint.
  Each candidate, newest first, is read in full (`checkpoint_error`); a
  damaged or non-finite one gets one warning line and is skipped (left in
  place). No path is taken for a glob pattern.

  Raises:
    InputError: output_dir holds checkpoints but none of them is usable
      (resuming from scratch would silently lose the run).
  """
  if not tf.io.gfile.isdir(output_dir):
    return None
  damaged = []
  for prefix in _candidates(output_dir):
    error = checkpoint_error(prefix)
    if error is None:
      return prefix
    damaged.append(prefix)
    if (prefix, _signature(prefix)) in _WARNED:
      continue
    _WARNED.add((prefix, _signature(prefix)))
    logging.warning("Checkpoint %s %s; it is skipped (left in place)",
                    prefix, error)
  if damaged:
    error = checkpoint_error(damaged[0])
    raise InputError(
        "--output_dir=%s: no %s checkpoint (%s %s); move those files away "
        "to start afresh" % (
            output_dir, "readable" if error.startswith("is damaged") else
            "finite", os.path.basename(damaged[0]), error))
  return None


def global_step_of(prefix):
  """The global_step saved in checkpoint `prefix` (else from its name, or 0)."""
  reader = literal_paths.load_checkpoint(prefix)
  if reader.has_tensor("global_step"):
    return int(reader.get_tensor("global_step"))
  return checkpoint_step(prefix) or 0


def save(variables, output_dir, step, keep_checkpoint_max):
  """Writes model.ckpt-STEP; returns its prefix."""
  return modeling.save_checkpoint(variables, output_dir, int(step),
                                  max_to_keep=keep_checkpoint_max or None)


def set_aside(prefix, tag):
  """Renames checkpoint `prefix`'s files to `prefix.tag.*` (index first), so
  that no resume, evaluation or export takes it; returns the new prefix
  (`prefix.tag-2`, -3, ... when that name is taken: nothing is replaced).
  """
  new, n = "%s.%s" % (prefix, tag), 1
  while literal_paths.checkpoint_files(new):
    n += 1
    new = "%s.%s-%d" % (prefix, tag, n)
  for path in literal_paths.checkpoint_files(prefix):  # The index first.
    tf.io.gfile.rename(path, new + path[len(prefix):], overwrite=False)
  return new


def restore_exact(variables, prefix, optional=()):
  """Restores every entry of `variables` from `prefix` (training resume).

  Names in `optional` (e.g. the float16 loss-scale state, absent from a
  float32 run's checkpoint) keep their current value when absent.

  Raises:
    InputError: the checkpoint is unusable or of a different model.
  """
  error = checkpoint_error(prefix)  # Cached when latest_checkpoint chose it.
  if error is not None:
    raise InputError("--output_dir=%s: checkpoint %s %s" % (
        os.path.dirname(prefix), os.path.basename(prefix), error))
  reader = literal_paths.load_checkpoint(prefix)
  shapes = reader.get_variable_to_shape_map()
  variables = {n: v for n, v in variables.items()
               if n in shapes or n not in optional}
  missing = [n for n in variables if n not in shapes]
  if missing:
    raise InputError(
        "--output_dir=%s holds a checkpoint of a different model: %s has no "
        "variable %s (%d of %d missing). Use a new --output_dir, or delete "
        "the old checkpoints." % (
            os.path.dirname(prefix), os.path.basename(prefix), missing[0],
            len(missing), len(variables)))
  for name, var in variables.items():
    if tuple(shapes[name]) != tuple(var.shape):
      raise InputError(
          "--output_dir=%s holds a checkpoint of a different model: variable "
          "%s has shape %s in %s but %s in this model. Use a new "
          "--output_dir, or delete the old checkpoints." % (
              os.path.dirname(prefix), name, list(shapes[name]),
              os.path.basename(prefix), list(var.shape)))
  for name, var in variables.items():
    var.assign(reader.get_tensor(name))
  logging.info("Restored %d variables from %s", len(variables), prefix)


def refuse_other_model(output_dir, task):
  """Raises InputError if `output_dir` holds a checkpoint of another model
  (scripts call it before writing anything there)."""
  latest = latest_checkpoint(output_dir)
  if latest:
    restore_exact(task.checkpoint_variables(task.build_model()), latest)


def batch_shape(train_batch_size, max_seq_length):
  """The batch shape a training run records: {flag: value}, None values
  (a caller without a sequence length) left out."""
  values = dict(zip(_SHAPE_FLAGS, (train_batch_size, max_seq_length)))
  return {k: int(v) for k, v in values.items() if v is not None}


def read_batch_shape(output_dir):
  """The batch shape recorded in output_dir, or None (none, or damaged:
  one warning; the next save rewrites it)."""
  path = os.path.join(output_dir, BATCH_SHAPE_FILE)
  try:
    with tf.io.gfile.GFile(path, "rb") as f:
      recorded = json.loads(f.read().decode("utf-8"))
    return {k: int(recorded[k]) for k in _SHAPE_FLAGS if k in recorded}
  except tf.errors.NotFoundError:
    return None
  except (ValueError, TypeError, AttributeError, UnicodeDecodeError) as e:
    if path not in _WARNED:
      _WARNED.add(path)
      logging.warning("Ignoring the damaged %s (%s); the next checkpoint "
                      "save rewrites it", path, e)
    return None


def write_batch_shape(output_dir, shape):
  """Records `shape` (see `batch_shape`) in output_dir, atomically."""
  atomic_write_text(os.path.join(output_dir, BATCH_SHAPE_FILE),
                    json.dumps(shape, sort_keys=True) + "\n")


def check_batch_shape(output_dir, shape, allow=False):
  """Refuses to resume output_dir's checkpoint with another batch shape
  (its steps, schedule and --skip_consumed_batches count recorded batches).

  Args:
    output_dir: the run's directory.
    shape: this run's `batch_shape`.
    allow: --allow_new_batch_shape: resume anyway (one warning line).
  """
  recorded = read_batch_shape(output_dir)
  if not recorded:
    return
  changed = [k for k in _SHAPE_FLAGS
             if k in shape and k in recorded and shape[k] != recorded[k]]
  if not changed:
    return
  latest = latest_checkpoint(output_dir)
  if latest is None:
    return  # Nothing to resume: the run starts afresh.
  values = lambda d: ", ".join("--%s=%d" % (k, d[k]) for k in changed)  # pylint: disable=unnecessary-lambda-assignment
  if allow:
    logging.warning("Resuming %s, trained with %s, with %s "
                    "(--allow_new_batch_shape)", latest, values(recorded),
                    values(shape))
    return
  raise InputError(
      "%s: --output_dir=%s holds %s, trained with %s (%s); resuming with "
      "another batch shape changes what its steps, learning-rate schedule "
      "and --skip_consumed_batches mean. Pass the recorded values, a new "
      "--output_dir, or --allow_new_batch_shape" % (
          values(shape), output_dir, os.path.basename(latest),
          values(recorded), BATCH_SHAPE_FILE))
