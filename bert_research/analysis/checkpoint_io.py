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

from tokenization.errors import InputError


def list_variables(path, flag_name="init_checkpoint"):
  """Returns {name: shape (list of int)} for every variable in a checkpoint."""
  _, reader = _open(path, flag_name)
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
    path: checkpoint prefix or directory (see `modeling.resolve_checkpoint`).
    name: variable name, e.g. "bert/embeddings/position_embeddings".
    flag_name: flag holding `path`, named in error messages.
    variable_flag: flag holding `name`, named in error messages.

  Returns:
    numpy array with the variable's stored shape and dtype.

  Raises:
    InputError: missing/corrupt checkpoint, or no such variable (the message
      lists similar names found in the checkpoint).
  """
  prefix, reader = _open(path, flag_name)
  shapes = reader.get_variable_to_shape_map()
  if name not in shapes:
    hints = similar_names(name, shapes.keys())
    hint = ("; similar names: %s" % ", ".join(hints)) if hints else (
        "; it holds %d variables, none similar" % len(shapes))
    raise InputError("--%s=%s: variable not found in checkpoint %s%s"
                     % (variable_flag, name, prefix, hint))
  return np.asarray(reader.get_tensor(name))


def _open(path, flag_name):
  # Deferred: importing modeling (TensorFlow, Keras) takes seconds.
  from modeling import checkpoint  # pylint: disable=g-import-not-at-top
  return checkpoint.open_checkpoint(path, flag_name)
