"""`modeling.LayerNorm`: float32 runs the original's `ops.layer_norm`; below
float32 the centred form (`ops.centered_layer_norm`, fewer passes), the
same maths within float32 round-off."""

import numpy as np
import pytest
import tensorflow as tf

from modeling import layers
from modeling import ops


def _inputs():
  """[4, 5, 64] rows of different means and spreads (a residual stream's
  range)."""
  rng = np.random.RandomState(0)
  x = rng.normal(size=(4, 5, 64)) * rng.uniform(0.5, 5.0, size=(4, 5, 1))
  return (x + rng.normal(scale=20.0, size=(4, 5, 1))).astype(np.float32)


def _reference(x, gamma, beta, epsilon=1e-12):
  x = x.astype(np.float64)
  mean = x.mean(-1, keepdims=True)
  variance = ((x - mean) ** 2).mean(-1, keepdims=True)
  return (x - mean) / np.sqrt(variance + epsilon) * gamma + beta


def test_centred_equals_the_original_within_float32_round_off():
  x = _inputs()
  rng = np.random.RandomState(1)
  gamma = rng.uniform(0.5, 2.0, 64).astype(np.float32)
  beta = rng.normal(size=64).astype(np.float32)
  centred = ops.centered_layer_norm(tf.constant(x), gamma, beta).numpy()
  original = ops.layer_norm(tf.constant(x), gamma, beta).numpy()
  reference = _reference(x, gamma, beta)
  centred_error = np.abs(centred - reference).max()
  original_error = np.abs(original - reference).max()
  assert centred_error < 2e-5 and original_error < 2e-5
  # Centring first loses less to the mean (here: about half as much).
  assert centred_error <= original_error
  assert np.abs(centred - original).max() > 0  # Two op sequences.
  # bfloat16 in and out.
  low_x = tf.constant(x, tf.bfloat16)
  low = ops.centered_layer_norm(low_x, gamma, beta)
  assert low.dtype == tf.bfloat16
  np.testing.assert_allclose(
      tf.cast(low, tf.float32).numpy(),
      _reference(tf.cast(low_x, tf.float32).numpy(), gamma, beta),
      atol=0.02, rtol=0.01)  # The output's bfloat16 rounding.


@pytest.mark.parametrize("policy", ["float32", "mixed_bfloat16"])
def test_the_layer_takes_the_form_of_its_precision(policy):
  layer = layers.LayerNorm(64, dtype=policy)
  rng = np.random.RandomState(2)
  layer.gamma.assign(rng.uniform(0.5, 2.0, 64))
  layer.beta.assign(rng.normal(size=64))
  x = tf.constant(_inputs())
  out = layer(x)
  if policy == "float32":
    want = ops.layer_norm(x, layer.gamma, layer.beta)
  else:
    want = ops.centered_layer_norm(tf.cast(x, tf.bfloat16), layer.gamma,
                                   layer.beta)
  assert out.dtype == want.dtype
  np.testing.assert_array_equal(out.numpy(), want.numpy())
