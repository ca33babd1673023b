"""Pooling of token vectors into one sentence vector, and how a checkpoint
says which pooling it was trained with.

Modes (sentence-transformers' names): "mean", "cls", "max",
"mean_sqrt_len" (sum / sqrt(length)), plus "pooled" (BERT's tanh pooler on
[CLS]).

`pooling_from_dir(model_dir)` reads sentence-transformers' `modules.json`
and `1_Pooling/config.json` (all-MiniLM-L6-v2: mean, then Normalize);
without them the default is "cls" without normalisation.

Example:
  >>> import tensorflow as tf
  >>> x = tf.constant([[[1., 2.], [3., 4.], [9., 9.]]])
  >>> pool(x, tf.constant([[1, 1, 0]]), "mean").numpy()
  array([[2., 3.]], dtype=float32)
  >>> pool(x, tf.constant([[1, 1, 0]]), "max").numpy()
  array([[3., 4.]], dtype=float32)
"""

import collections
import json
import os

import tensorflow as tf

from bert_tf2.common import InputError

MODES = ("mean", "cls", "max", "mean_sqrt_len", "pooled")
_ST_KEYS = (("pooling_mode_mean_tokens", "mean"),
            ("pooling_mode_cls_token", "cls"),
            ("pooling_mode_max_tokens", "max"),
            ("pooling_mode_mean_sqrt_len_tokens", "mean_sqrt_len"))


class PoolingConfig(collections.namedtuple("PoolingConfig",
                                           ["mode", "normalize"])):
  """mode: one of MODES; normalize: L2-normalise the sentence vectors."""


def _read_json(path):
  try:
    with open(path, encoding="utf-8") as f:
      return json.load(f)
  except (OSError, ValueError) as e:
    raise InputError("%s: %s" % (path, e)) from None


def pooling_from_dir(model_dir):
  """The PoolingConfig of a model directory (see module docstring)."""
  modules_path = os.path.join(model_dir, "modules.json")
  if not os.path.exists(modules_path):
    return PoolingConfig("cls", False)
  modules = _read_json(modules_path)
  if not isinstance(modules, list):
    raise InputError("%s: expected a list of modules" % modules_path)
  mode, normalize = "cls", False
  for module in modules:
    kind = str(module.get("type", "")).rsplit(".", 1)[-1]
    if kind == "Normalize":
      normalize = True
    elif kind == "Pooling":
      path = os.path.join(model_dir, module.get("path", ""), "config.json")
      config = _read_json(path)
      chosen = [name for key, name in _ST_KEYS if config.get(key)]
      unknown = [k for k, v in config.items() if k.startswith("pooling_mode")
                 and v and k not in dict(_ST_KEYS)]
      if len(chosen) != 1 or unknown:
        raise InputError("%s: supported is exactly one of %s" %
                         (path, ", ".join(k for k, _ in _ST_KEYS)))
      mode = chosen[0]
    elif kind not in ("Transformer",):
      raise InputError("%s: module type %s is not supported" %
                       (modules_path, module.get("type")))
  return PoolingConfig(mode, normalize)


def pool(sequence_output, input_mask, mode, pooled_output=None):
  """Sentence vectors from token vectors.

  Args:
    sequence_output: float [batch_size, seq_length, hidden_size].
    input_mask: int [batch_size, seq_length], 1 for real tokens.
    mode: one of MODES.
    pooled_output: float [batch_size, hidden_size], needed for "pooled".

  Returns:
    float [batch_size, hidden_size].
  """
  if mode == "cls":
    return sequence_output[:, 0]
  if mode == "pooled":
    if pooled_output is None:
      raise ValueError("mode 'pooled' needs pooled_output")
    return pooled_output
  mask = tf.cast(input_mask, sequence_output.dtype)[:, :, None]
  if mode == "max":
    very_negative = tf.cast(-1e9, sequence_output.dtype)
    return tf.reduce_max(sequence_output * mask + (1. - mask) * very_negative,
                         axis=1)
  total = tf.reduce_sum(sequence_output * mask, axis=1)
  count = tf.maximum(tf.reduce_sum(mask, axis=1), 1e-9)
  if mode == "mean":
    return total / count
  if mode == "mean_sqrt_len":
    return total / tf.sqrt(count)
  raise ValueError("unknown pooling mode %r (known: %s)" % (mode, MODES))


def l2_normalize(vectors):
  """Rows scaled to unit L2 norm (sentence-transformers' Normalize: divides
  by max(norm, 1e-12))."""
  norm = tf.norm(vectors, axis=-1, keepdims=True)
  return vectors / tf.maximum(norm, 1e-12)
