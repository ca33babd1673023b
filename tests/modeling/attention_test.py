"""`SelfAttention` below float32: in bfloat16 inference its scores are
scaled, masked and normalised in bfloat16 (no float32 pass over them);
in training, and in float32, they are float32 from the matmul on. Both
stay within bfloat16 round-off of the float32 layer."""

import numpy as np
import pytest
import tensorflow as tf

from modeling import attention
from modeling import ops


def _layers(layout):
  """(float32 layer, bfloat16 layer) with the same weights."""
  out = []
  for dtype in ("float32", "mixed_bfloat16"):
    layer = attention.SelfAttention(64, 4, attention_layout=layout,
                                    dtype=dtype)
    layer(tf.zeros([1, 3, 64]), None)
    out.append(layer)
  rng = np.random.RandomState(0)
  for w32, w16 in zip(out[0].weights, out[1].weights):
    value = rng.normal(0, 0.3, w32.shape).astype("float32")
    w32.assign(value)
    w16.assign(value)
  return out


def _inputs():
  rng = np.random.RandomState(1)
  x = tf.constant(rng.normal(0, 1, [3, 10, 64]).astype("float32"))
  mask = np.ones([3, 10], "int32")
  mask[1, 6:] = 0
  mask[2, 2:] = 0
  return x, ops.attention_mask_adder(tf.constant(mask), x.dtype)


def _softmax_dtypes(layer, x, adder, training):
  fn = tf.function(lambda a: layer(a, adder, training=training)[0])
  graph = fn.get_concrete_function(x).graph
  return [op.get_attr("T") for op in graph.get_operations()
          if op.type == "Softmax"]


@pytest.mark.parametrize("layout", attention.ATTENTION_LAYOUTS)
def test_bfloat16_inference_normalises_in_bfloat16(layout):
  f32, bf16 = _layers(layout)
  x, adder = _inputs()
  assert _softmax_dtypes(bf16, x, adder, False) == [tf.bfloat16]
  assert _softmax_dtypes(bf16, x, adder, True) == [tf.float32]
  assert _softmax_dtypes(f32, x, adder, False) == [tf.float32]
  want, want_probs = f32(x, adder, training=False)
  for training in (False, True):
    got, probs = bf16(x, adder, training=training)
    assert got.dtype == tf.bfloat16 and probs.dtype == tf.float32
    scale = float(tf.reduce_max(tf.abs(want)))
    assert scale > 0.5
    np.testing.assert_allclose(tf.cast(got, tf.float32), want,
                               atol=0.03 * scale)
    np.testing.assert_allclose(probs, want_probs, atol=0.02)
    # Masked keys get no weight; each row sums to one (to bf16 round-off).
    assert float(tf.reduce_max(probs[2, :, :, 2:])) == 0.0
    np.testing.assert_allclose(tf.reduce_sum(probs, -1), 1.0, atol=0.02)


@pytest.mark.parametrize("layout", attention.ATTENTION_LAYOUTS)
def test_from_tensor_attends_its_own_queries_to_x(layout):
  # from_tensor = x's first positions: the answers are those rows of the
  # full self-attention's, over every key of x.
  f32, _ = _layers(layout)
  x, adder = _inputs()
  want, want_probs = f32(x, adder)
  for rows in (1, 4):
    got, probs = f32(x, adder, from_tensor=x[:, :rows])
    assert got.shape == (3, rows, 64) and probs.shape == (3, 4, rows, 10)
    np.testing.assert_allclose(got, want[:, :rows], atol=1e-5)
    np.testing.assert_allclose(probs, want_probs[:, :, :rows], atol=1e-6)
  # Queries from other vectors than x's: different answers.
  got, _ = f32(x, adder, from_tensor=x[:, 5:6])
  assert float(tf.reduce_max(tf.abs(got - want[:, :1]))) > 0.1
