"""Shared pieces of the predictors: input checks, batching, SavedModel write.

A SavedModel is written to `export_dir + ".tmp-export"` and renamed into
place, so a failed export never leaves a half-written model; an existing
directory is replaced only if it is a SavedModel.
"""

import os

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError


def check_texts(texts, what="texts", pairs=True):
  """Validates a list of texts (or of (text_a, text_b) pairs).

  Returns:
    list of (text_a, text_b or None).

  Raises:
    InputError: `texts` is a single string, not a list, or holds an item
      that is neither a str nor (with pairs=True) a pair of str.
  """
  if isinstance(texts, (str, bytes)) or not isinstance(texts, (list, tuple)):
    raise InputError("%s: expected a list of strings%s, got %s" % (
        what, " or (text_a, text_b) pairs" if pairs else "",
        type(texts).__name__))
  out = []
  for i, item in enumerate(texts):
    if isinstance(item, str):
      out.append((item, None))
    elif (pairs and isinstance(item, (list, tuple)) and len(item) == 2 and
          all(isinstance(t, str) for t in item)):
      out.append((item[0], item[1]))
    else:
      raise InputError("%s[%d]: expected a str%s, got %r" % (
          what, i, " or a (str, str) pair" if pairs else "", item))
  return out


def run_batches(fn, arrays, batch_size):
  """Applies fn(*batch) to int32 arrays in batches; concatenates outputs.

  fn returns a Tensor or a tuple of Tensors; so does this (numpy).
  """
  outputs = []
  for begin in range(0, len(arrays[0]), batch_size):
    batch = [tf.constant(np.asarray(a[begin:begin + batch_size], np.int32))
             for a in arrays]
    result = fn(*batch)
    single = not isinstance(result, (list, tuple))
    outputs.append([result] if single else list(result))
  merged = [np.concatenate([o[i].numpy() for o in outputs])
            for i in range(len(outputs[0]))]
  return merged[0] if single else tuple(merged)


def check_export_dir(export_dir):
  """export_dir without a trailing "/", if it is new or a SavedModel.

  Raises:
    InputError: export_dir exists and is not a SavedModel (not replaced).
  """
  export_dir = str(export_dir).rstrip("/")
  if (tf.io.gfile.exists(export_dir) and
      not tf.io.gfile.exists(os.path.join(export_dir, "saved_model.pb"))):
    raise InputError("export_dir=%s exists and is not a SavedModel; not "
                     "replacing it" % export_dir)
  return export_dir


def write_saved_model(module, export_dir, signatures):
  """Saves `module` with `signatures` to export_dir atomically."""
  export_dir = check_export_dir(export_dir)
  tmp = export_dir + ".tmp-export"
  if tf.io.gfile.exists(tmp):
    tf.io.gfile.rmtree(tmp)
  tf.saved_model.save(module, tmp, signatures=signatures)
  if tf.io.gfile.exists(export_dir):
    tf.io.gfile.rmtree(export_dir)
  tf.io.gfile.rename(tmp, export_dir)
  logging.info("SavedModel written to %s", export_dir)
  return export_dir
