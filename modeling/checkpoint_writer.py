"""Writes checkpoints in the original TF1 format and names, atomically.

`save_checkpoint({name: variable_or_tensor}, output_dir, step)` writes
`model.ckpt-STEP.index` + `model.ckpt-STEP.data-00000-of-00001` (the
tf.compat.v1.train.Saver "V2" format, readable by `tf.train.load_checkpoint`
and by the original code's `init_from_checkpoint`) and then updates the
`checkpoint` state file, keeping the last `max_to_keep` checkpoints.

Crash safety (a kill -9 at any instant):
  1. the tensors are written under a temporary prefix
     (`model.ckpt-STEP.tmp-<random>.{index,data-*}`) and fsync'ed;
  2. the data file is renamed to its final name, then the index file (a
     checkpoint counts as present only once its `.index` exists, and the
     index is renamed last, so a visible index always has its data);
  3. the `checkpoint` state file is replaced atomically, last;
  4. only then are checkpoints beyond `max_to_keep` deleted (index first).
A kill leaves at worst `*.tmp-*` files (of a checkpoint or of the state
file) or a data file without an index (all removed by the next save), or a
complete checkpoint not yet listed in the state file (counted by the next
save's retention: every `model.ckpt-N` of the directory is, listed or not);
`tf.train.latest_checkpoint` still names the last complete checkpoint.
"""

import os
import re
import time
import uuid

from absl import logging
import tensorflow as tf

from modeling import literal_paths
from tokenization.atomic import atomic_write_text
from tokenization.atomic import is_local as _is_local
from tokenization.atomic import replace as _rename

# Test hook: when set to a stage name, the writer prints
# "FAULT_POINT <stage>" to stderr and sleeps there (tests kill it then).
_FAULT_ENV = "BERT_CHECKPOINT_FAULT_POINT"
STAGES = ("tmp_written", "data_renamed", "index_renamed", "state_written")


def _fault_point(stage):
  if os.environ.get(_FAULT_ENV) == stage:
    import sys  # pylint: disable=g-import-not-at-top
    sys.stderr.write("FAULT_POINT %s\n" % stage)
    sys.stderr.flush()
    time.sleep(3600)


def _fsync(path):
  if not _is_local(path):
    return
  fd = os.open(path, os.O_RDONLY)
  try:
    os.fsync(fd)
  finally:
    os.close(fd)


def _fsync_dir(path):
  if _is_local(path):
    try:
      _fsync(path or ".")
    except OSError:  # Some filesystems refuse directory fsync.
      pass


def _remove(path):
  try:
    tf.io.gfile.remove(path)
  except tf.errors.NotFoundError:
    pass


def _names_starting(directory, start):
  """Paths in `directory` whose names start with `start` (no glob: the
  directory's name may hold [, ], * or ?)."""
  try:
    names = tf.io.gfile.listdir(directory or ".")
  except tf.errors.NotFoundError:
    return []
  return [os.path.join(directory, n) for n in names if n.startswith(start)]


def _steps_in(directory, basename):
  """["<basename>-N", ...] with an index in `directory`, oldest first."""
  found = []
  for path in _names_starting(directory, basename + "-"):
    m = re.search(r"-(\d+)\.index$", path)
    if m and os.path.basename(path) == "%s-%s.index" % (basename, m.group(1)):
      found.append((int(m.group(1)), os.path.basename(path)[:-6]))
  return [name for _, name in sorted(found)]


def _to_tensor(value):
  if hasattr(value, "read_value"):
    value = value.read_value()
  elif hasattr(value, "value") and not isinstance(value, tf.Tensor):
    value = value.value  # Keras variable.
  return tf.convert_to_tensor(value)


def write_checkpoint(variables, prefix):
  """Atomically writes {name: tensor} as the checkpoint `prefix`.

  No `checkpoint` state file is touched (e.g. for `bert_model.ckpt`).

  Args:
    variables: dict {original name: variable, Keras variable, Tensor or
      numpy array}; any names (optimizer slots, global_step) are allowed.
    prefix: checkpoint prefix, e.g. "/out/bert_model.ckpt".

  Returns:
    `prefix`.
  """
  if not variables:
    raise ValueError("write_checkpoint: no variables to write")
  prefix = str(prefix)
  directory = os.path.dirname(prefix)
  if directory:
    tf.io.gfile.makedirs(directory)
  names = sorted(variables)
  tensors = [_to_tensor(variables[n]) for n in names]
  tmp = "%s.tmp-%s" % (prefix, uuid.uuid4().hex[:12])
  data_name = ".data-00000-of-00001"
  try:
    with tf.device("/cpu:0"):
      tf.raw_ops.SaveV2(prefix=tmp, tensor_names=names,
                        shape_and_slices=[""] * len(names), tensors=tensors)
    _fsync(tmp + data_name)
    _fsync(tmp + ".index")
    _fault_point("tmp_written")
    if tf.io.gfile.exists(prefix + ".index"):
      _remove(prefix + ".index")  # Old copy of this prefix: hide it first.
    for old in literal_paths.checkpoint_files(prefix):
      _remove(old)
    _rename(tmp + data_name, prefix + data_name)
    _fault_point("data_renamed")
    _rename(tmp + ".index", prefix + ".index")
    _fsync_dir(directory)
    _fault_point("index_renamed")
  except BaseException:
    for leftover in _names_starting(directory, os.path.basename(tmp)):
      _remove(leftover)
    raise
  return prefix


def _state_text(model_checkpoint_path, all_paths):
  lines = ['model_checkpoint_path: "%s"' % model_checkpoint_path]
  lines += ['all_model_checkpoint_paths: "%s"' % p for p in all_paths]
  return "\n".join(lines) + "\n"


def _remove_checkpoint(prefix):
  _remove(prefix + ".index")  # Index first: a half-removed one is invisible.
  for path in literal_paths.checkpoint_files(prefix):
    _remove(path)
  if tf.io.gfile.exists(prefix + ".meta"):
    _remove(prefix + ".meta")


def _retained(on_disk, name, max_to_keep):
  """(kept, removed): checkpoint names after saving `name`.

  Every checkpoint of the directory counts (`on_disk`, "<basename>-N",
  oldest first), listed in the state file or not: one a killed run saved
  but never listed is an orphan that would otherwise stay forever. Those
  with a higher step than `name` (damaged or non-finite ones a resume
  skipped, kept for inspection) are neither kept in the list nor removed.

  >>> _retained(["m-1", "m-13", "m-42", "m-43", "m-44"], "m-45", 3)
  (['m-43', 'm-44', 'm-45'], ['m-1', 'm-13', 'm-42'])
  >>> _retained(["m-5", "m-20"], "m-10", 2)
  (['m-5', 'm-10'], [])
  """
  step = lambda n: int(n.rsplit("-", 1)[1])
  paths = [n for n in on_disk if step(n) < step(name)] + [name]
  if not max_to_keep:
    return paths, []
  return paths[-max_to_keep:], paths[:-max_to_keep]


def _clean_stale_files(directory, basename):
  """Removes leftovers of killed saves: temporaries (of checkpoints and of
  the `checkpoint` state file), data without index."""
  for path in _names_starting(directory, "checkpoint.tmp-"):
    _remove(path)
  for path in _names_starting(directory, basename + "-"):
    name = os.path.basename(path)
    if re.search(r"-\d+\.tmp-", name):
      _remove(path)
    elif re.search(r"-\d+\.data-\d+-of-\d+$", name):
      prefix = re.sub(r"\.data-\d+-of-\d+$", "", path)
      if not tf.io.gfile.exists(prefix + ".index"):
        _remove(path)


def relist_checkpoints(directory, basename="model.ckpt"):
  """Rewrites `directory`'s `checkpoint` state file to the checkpoints on
  disk ("<basename>-N" with an index; the newest is the latest), or
  removes it when none is left: after checkpoints were renamed away (set
  aside), `tf.train.latest_checkpoint` and Google's code never get a path
  that no longer exists.

  >>> import tempfile, numpy as np
  >>> out = tempfile.mkdtemp()
  >>> for step in (1, 2):
  ...   _ = save_checkpoint({"a": np.ones([1], np.float32)}, out, step)
  >>> _remove_checkpoint(os.path.join(out, "model.ckpt-2"))
  >>> relist_checkpoints(out)
  >>> os.path.basename(tf.train.latest_checkpoint(out))
  'model.ckpt-1'
  """
  state = os.path.join(directory, "checkpoint")
  paths = _steps_in(directory, basename)
  if paths:
    atomic_write_text(state, _state_text(paths[-1], paths))
  elif tf.io.gfile.exists(state):
    _remove(state)


def save_checkpoint(variables, output_dir_or_prefix, step, max_to_keep=5,
                    basename="model.ckpt"):
  """Writes `<dir>/model.ckpt-STEP` atomically and updates `checkpoint`.

  Args:
    variables: dict {original name: variable / tensor / array}, e.g.
      `modeling.original_variable_names(model)` plus optimizer slots
      ("<name>/adam_m", "<name>/adam_v") and "global_step".
    output_dir_or_prefix: a directory (existing, or ending in "/", or with
      no ".ckpt" in its last component), or a prefix like "dir/model.ckpt".
    step: int, the global step (suffix of the prefix).
    max_to_keep: keep this many newest checkpoints of the directory, listed
      in the state file or not (None or 0: keep all).
    basename: file name stem when a directory is given.

  Returns:
    The checkpoint prefix written, e.g. "/out/model.ckpt-1000".

  Example:
    >>> import tempfile, numpy as np
    >>> out = tempfile.mkdtemp()
    >>> path = save_checkpoint({"a/b": np.ones([2], np.float32)}, out, 3)
    >>> tf.train.latest_checkpoint(out) == path
    True
  """
  target = str(output_dir_or_prefix)
  if (target.endswith("/") or tf.io.gfile.isdir(target) or
      ".ckpt" not in os.path.basename(target)):
    directory, basename = target.rstrip("/") or "/", basename
  else:
    directory, basename = os.path.dirname(target), os.path.basename(target)
  tf.io.gfile.makedirs(directory or ".")
  _clean_stale_files(directory, basename)
  name = "%s-%d" % (basename, int(step))
  prefix = os.path.join(directory, name)
  write_checkpoint(variables, prefix)

  paths, removed = _retained(_steps_in(directory, basename), name,
                             max_to_keep)
  atomic_write_text(os.path.join(directory, "checkpoint"),
                    _state_text(name, paths))
  _fault_point("state_written")
  for old in removed:
    _remove_checkpoint(os.path.join(directory, old))
  logging.info("Saved checkpoint %s (%d tensors)", prefix, len(variables))
  return prefix
