"""The small fixed problem of the optimizer golden test (TF1 and TF2 alike).

`loss_fn(tf, weights, x, y)` uses only ops that exist with the same
signature in `tensorflow` and `tensorflow.compat.v1`, so the original
optimizer (graph mode) and ours (eager) see the same loss and gradients.
Variable names follow BERT's conventions so that weight-decay exclusion
(LayerNorm, bias) is exercised.
"""

import numpy as np

NAMES_AND_SHAPES = (
    ("layer/dense/kernel", (4, 6)),
    ("layer/dense/bias", (6,)),
    ("layer/LayerNorm/gamma", (6,)),
    ("layer/LayerNorm/beta", (6,)),
    ("cls/output_weights", (6, 3)),
    ("cls/output_bias", (3,)),
)


def initial_weights(seed=0):
  rng = np.random.RandomState(seed)
  weights = {}
  for name, shape in NAMES_AND_SHAPES:
    if name.endswith("gamma"):
      value = 1.0 + 0.1 * rng.randn(*shape)
    else:
      value = 0.5 * rng.randn(*shape)
    weights[name] = value.astype(np.float32)
  return weights


def batch(seed=1, size=8):
  rng = np.random.RandomState(seed)
  x = rng.randn(size, 4).astype(np.float32)
  y = rng.randint(0, 3, size=[size]).astype(np.int32)
  return x, y


def loss_fn(tf, weights, x, y):
  """Mean softmax cross-entropy of a Dense-tanh-LayerNorm-Dense classifier."""
  h = tf.tanh(tf.matmul(x, weights["layer/dense/kernel"]) +
              weights["layer/dense/bias"])
  mean = tf.reduce_mean(h, axis=-1, keepdims=True)
  var = tf.reduce_mean(tf.square(h - mean), axis=-1, keepdims=True)
  h = ((h - mean) * tf.math.rsqrt(var + 1e-12) *
       weights["layer/LayerNorm/gamma"] + weights["layer/LayerNorm/beta"])
  logits = (tf.matmul(h, weights["cls/output_weights"]) +
            weights["cls/output_bias"])
  return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
      labels=y, logits=logits))
