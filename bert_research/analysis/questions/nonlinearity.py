"""`nonlinearity`: GELU, softmax and LayerNorm replaced one at a time: the
change of the mean-pooled vectors and a topic probe.
"""

import contextlib

import numpy as np

from bert_research.analysis.questions import common
from bert_research.analysis.questions import long_text
from tokenization.errors import InputError


NONLINEARITIES = ("as trained", "GELU -> identity", "softmax -> uniform",
                  "softmax -> shifted linear", "LayerNorm -> fixed scale")


def uniform_attention(scores):
  """Softmax replaced by a uniform row over the keys not masked out.

  Args:
    scores: float Tensor [..., S] (masked keys carry -10000 added).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  keep = tf.cast(scores > -5000.0, scores.dtype)
  return keep / tf.reduce_sum(keep, axis=-1, keepdims=True)


def shifted_linear_attention(scores):
  """Softmax replaced by a linear normalisation: (s - min) / sum(s - min)
  over the keys not masked out (no exponential)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  keep = scores > -5000.0
  low = tf.reduce_min(tf.where(keep, scores, tf.reduce_max(scores, -1,
                                                           keepdims=True)),
                      axis=-1, keepdims=True)
  # The row's smallest key keeps a tiny weight: no row sums to 0.
  shifted = tf.where(keep, scores - low + 1e-6, 0.0)
  return shifted / tf.reduce_sum(shifted, axis=-1, keepdims=True)


def fixed_scale_layer_norm(x, gamma, beta, scale):
  """LayerNorm with the per-token standard deviation replaced by a constant:
  gamma * (x - mean(x)) / scale + beta, affine in x.

  Args:
    x: float [..., width] (numpy or Tensor); gamma, beta: float [width];
    scale: float.

  >>> np.asarray(fixed_scale_layer_norm(np.array([[1.0, 3.0]]), np.ones(2),
  ...                                   np.zeros(2), 2.0))
  array([[-0.5,  0.5]])
  """
  import keras  # pylint: disable=g-import-not-at-top
  centred = x - keras.ops.mean(x, axis=-1, keepdims=True)
  return keras.ops.cast(gamma, centred.dtype) * centred / scale + (
      keras.ops.cast(beta, centred.dtype))


def nonlinearity_patch(kind, scales=None, record=None):
  """A context in which BERT's forward pass has one non-linearity replaced.

  Args:
    kind: one of NONLINEARITIES past the GELU one (GELU -> identity is a
      config change: `hidden_act` "linear"); "as trained" patches nothing.
    scales: {id of a LayerNorm's gamma variable: float}, the fixed scale
      of each LayerNorm (for "LayerNorm -> fixed scale").
    record: optional {id of gamma: [standard deviations]}: with kind "as
      trained", every LayerNorm's per-token standard deviations are
      appended (the calibration pass for the fixed scales).

  The patches replace tf.nn.softmax (used by modeling/attention.py) and
  modeling.ops.layer_norm (used by modeling.LayerNorm) for the duration of
  the context only.
  """
  from unittest import mock  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from modeling import ops  # pylint: disable=g-import-not-at-top
  original = ops.layer_norm

  def recording(x, gamma=None, beta=None, epsilon=1e-12):
    _, variance = tf.nn.moments(tf.cast(x, tf.float32), axes=[-1])
    record.setdefault(id(gamma), []).extend(
        np.sqrt(np.asarray(variance) + epsilon).ravel().tolist())
    return original(x, gamma, beta, epsilon)

  def fixed(x, gamma=None, beta=None, epsilon=1e-12):
    del epsilon
    x = tf.cast(x, tf.float32)
    return fixed_scale_layer_norm(x, gamma, beta, scales[id(gamma)])

  if kind == "softmax -> uniform":
    return mock.patch.object(tf.nn, "softmax", uniform_attention)
  if kind == "softmax -> shifted linear":
    return mock.patch.object(tf.nn, "softmax", shifted_linear_attention)
  if kind == "LayerNorm -> fixed scale":
    return mock.patch.object(ops, "layer_norm", fixed)
  if kind == "as trained" and record is not None:
    return mock.patch.object(ops, "layer_norm", recording)
  if kind in ("as trained", "GELU -> identity"):
    return contextlib.nullcontext()
  raise ValueError("unknown kind %r" % kind)


def run_nonlinearity(args):
  import modeling  # pylint: disable=g-import-not-at-top
  if args.max_articles < 20:
    raise InputError("--max_articles=%d: must be at least 20"
                     % args.max_articles)
  model, config = common.load_model(args.bert_config_file, args.init_checkpoint)
  config.hidden_act = "linear"
  linear = modeling.BertModel(config)
  linear({"input_ids": np.zeros([1, 2], np.int32)})
  modeling.init_from_checkpoint(linear, args.init_checkpoint)
  tok = common.full_tokenizer(args.vocab_file)
  data = long_text.bbc_labelled(args.max_articles)
  encoded = [common.encode(tok, text, args.max_seq_length)
             for _, _, text in data]

  def vectors(net, eager=False):
    # In a graph function made (so traced) inside the patch's context; the
    # calibration pass runs eagerly: its patch reads values in NumPy.
    forward = net if eager else common.graph_forward(net)
    return np.stack([np.asarray(forward({"input_ids": ids,
                                         "token_type_ids": t})[
        "sequence_output"])[0].mean(axis=0) for ids, t in encoded])

  record = {}
  with nonlinearity_patch("as trained", record=record):
    base = vectors(model, eager=True)
  scales = {k: float(np.mean(v)) for k, v in record.items()}
  labels = np.array([t for _, t, _ in data])
  train = np.array([s == "train" for s, _, _ in data])
  print("%d BBC articles (first %d tokens), topic probe trained on %d, "
        "scored on the other %d (dev + test); mean-pooled last layer"
        % (len(data), args.max_seq_length, train.sum(), (~train).sum()))
  print("| forward pass | cos with the trained model's vector | topic "
        "accuracy |")
  print("|---|---|---|")
  for kind in NONLINEARITIES:
    if kind == "as trained":
      got = base
    else:
      with nonlinearity_patch(kind, scales=scales):
        got = vectors(linear if kind == "GELU -> identity" else model)
    cos = np.sum(got * base, 1) / (np.linalg.norm(got, axis=1)
                                   * np.linalg.norm(base, axis=1))
    right = common.probe_predictions(got[train], labels[train], got[~train])
    print("| %s | %.3f | %.3f |" % (kind, cos.mean(),
                                    np.mean(right == labels[~train])))
