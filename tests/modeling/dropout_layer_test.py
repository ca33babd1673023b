"""modeling.dropout: Keras' dropout outside XLA, the hash mask inside."""

import numpy as np
import pytest
import tensorflow as tf

from modeling import dropout_layer as dropout_lib


def _masks(layer, x, jit, calls=2):
  fn = tf.function(lambda t: layer(t, training=True), jit_compile=jit)
  return [fn(x).numpy() for _ in range(calls)]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("rate", [0.1, 0.5])
def test_rate_scaling_and_fresh_masks(jit, rate):
  x = tf.ones([8, 4, 64, 64])
  layer = dropout_lib.Dropout(rate, seed=3)
  first, second = _masks(layer, x, jit)
  for out in (first, second):
    assert set(np.unique(out)) <= {0.0, np.float32(1.0 / (1.0 - rate))}
    kept = (out != 0).mean()
    # 131,072 draws: 5 standard deviations of the kept fraction.
    assert abs(kept - (1 - rate)) < 5 * np.sqrt(rate * (1 - rate) / out.size)
  # A new mask each call, nearly independent of the previous one.
  agree = ((first != 0) == (second != 0)).mean()
  expected = rate ** 2 + (1 - rate) ** 2
  assert abs(agree - expected) < 0.01


def test_inference_is_identity_and_xla_uses_the_hash():
  x = tf.reshape(tf.range(24, dtype=tf.float32), [2, 3, 4])
  layer = dropout_lib.Dropout(0.3, seed=1)
  np.testing.assert_array_equal(layer(x, training=False).numpy(), x.numpy())
  seen = []

  def probe(t):
    seen.append(dropout_lib.in_xla_context())
    return layer(t, training=True)
  tf.function(probe, jit_compile=True)(x)
  tf.function(probe)(x)
  assert seen == [True, False]


def test_hash_bits_are_uniform_and_decorrelated():
  bits = dropout_lib.hash_random_bits([1 << 16], tf.constant([7, 11])).numpy()
  # Each of the 32 bit positions is set about half the time.
  per_bit = np.array([((bits >> k) & 1).mean() for k in range(32)])
  assert np.all(np.abs(per_bit - 0.5) < 0.01), per_bit
  u = bits.astype(np.float64) / 2.0**32
  assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.02
  other = dropout_lib.hash_random_bits([1 << 16], tf.constant([7, 12]))
  v = other.numpy().astype(np.float64) / 2.0**32
  assert abs(np.corrcoef(u, v)[0, 1]) < 0.02
  # Deterministic for a shape and seed.
  again = dropout_lib.hash_random_bits([1 << 16], tf.constant([7, 11]))
  np.testing.assert_array_equal(again.numpy(), bits)


def test_bad_rate():
  with pytest.raises(ValueError):
    dropout_lib.Dropout(1.0)
