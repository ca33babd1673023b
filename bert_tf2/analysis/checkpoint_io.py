"""Reads one variable from an original-format (TF) BERT checkpoint.

Only `tf.train.load_checkpoint` is needed: no model is built, so any
checkpoint written by Google's original code or by this project can be
inspected, whatever its config.

Example:
  >>> emb = read_variable("/path/bert_model.ckpt",
  ...                     "bert/embeddings/position_embeddings")  # doctest: +SKIP
  >>> emb.shape  # doctest: +SKIP
  (512, 768)
"""

import difflib

import numpy as np

from bert_tf2.common.errors import InputError

_HF_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".h5")


def resolve_checkpoint(path, flag_name="init_checkpoint"):
  """Returns the checkpoint prefix for `path` (a prefix or a directory).

  Args:
    path: string, a checkpoint prefix such as ".../bert_model.ckpt" or
      ".../model.ckpt-1000", one of its files, or a directory with a
      `checkpoint` state file or exactly one checkpoint.
    flag_name: flag named in error messages.

  Returns:
    The checkpoint prefix (string) whose ".index" file exists.

  Raises:
    InputError: no checkpoint at `path`.
  """
  import tensorflow as tf  # Deferred: importing TensorFlow takes seconds.
  if not path:
    raise InputError("--%s is required" % flag_name)
  path = str(path)
  if path.endswith(_HF_SUFFIXES):
    raise InputError(
        "--%s=%s: looks like a Hugging Face / PyTorch weights file, not an "
        "original TF checkpoint; convert it first with "
        "convert_hf_checkpoint.py" % (flag_name, path))
  if tf.io.gfile.isdir(path):
    latest = tf.train.latest_checkpoint(path)
    if latest is not None:
      return latest
    # No `checkpoint` state file (e.g. Google's released model folders):
    # accept a directory holding exactly one checkpoint.
    found = sorted(tf.io.gfile.glob(path.rstrip("/") + "/*.index"))
    if len(found) == 1:
      return found[0][:-len(".index")]
    if not found:
      raise InputError("--%s=%s: directory has no checkpoint (no *.index "
                       "file)" % (flag_name, path))
    raise InputError("--%s=%s: directory has %d checkpoints and no "
                     "'checkpoint' state file; name one, e.g. %s"
                     % (flag_name, path, len(found), found[-1][:-6]))
  if path.endswith(".index") or ".data-" in path:
    path = path[:path.rfind(".index")] if path.endswith(".index") else (
        path[:path.rfind(".data-")])
  if not tf.io.gfile.exists(path + ".index"):
    raise InputError("--%s=%s: checkpoint not found (expected the file %s)"
                     % (flag_name, path, path + ".index"))
  return path


def list_variables(path, flag_name="init_checkpoint"):
  """Returns {name: shape (list of int)} for every variable in a checkpoint."""
  reader = _reader(resolve_checkpoint(path, flag_name), flag_name)
  return dict(reader.get_variable_to_shape_map())


def similar_names(name, names, max_names=5):
  """Returns up to `max_names` entries of `names` that resemble `name`.

  Close spellings (difflib) come first, then names sharing the last path
  component (e.g. "position_embeddings" under another scope).
  """
  names = sorted(names)
  found = difflib.get_close_matches(name, names, n=max_names, cutoff=0.5)
  leaf = name.rstrip("/").split("/")[-1]
  for n in names:
    if len(found) >= max_names:
      break
    if leaf and leaf in n and n not in found:
      found.append(n)
  return found


def read_variable(path, name, flag_name="init_checkpoint",
                  variable_flag="variable"):
  """Reads variable `name` from the checkpoint at `path` as a numpy array.

  Args:
    path: checkpoint prefix or directory (see `resolve_checkpoint`).
    name: variable name, e.g. "bert/embeddings/position_embeddings".
    flag_name: flag holding `path`, named in error messages.
    variable_flag: flag holding `name`, named in error messages.

  Returns:
    numpy array with the variable's stored shape and dtype.

  Raises:
    InputError: missing/corrupt checkpoint, or no such variable (the message
      lists similar names found in the checkpoint).
  """
  prefix = resolve_checkpoint(path, flag_name)
  reader = _reader(prefix, flag_name)
  shapes = reader.get_variable_to_shape_map()
  if name not in shapes:
    hints = similar_names(name, shapes.keys())
    hint = ("; similar names: %s" % ", ".join(hints)) if hints else (
        "; it holds %d variables, none similar" % len(shapes))
    raise InputError("--%s=%s: variable not found in checkpoint %s%s"
                     % (variable_flag, name, prefix, hint))
  return np.asarray(reader.get_tensor(name))


def _reader(prefix, flag_name):
  import tensorflow as tf
  try:
    return tf.train.load_checkpoint(prefix)
  except (tf.errors.OpError, ValueError) as e:
    raise InputError("--%s=%s: cannot read checkpoint: %s"
                     % (flag_name, prefix, str(e).splitlines()[0])) from e
