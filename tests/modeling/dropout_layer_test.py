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


def _bf16_layer(rate, seed):
  """Dropout under mixed_bfloat16, as the model builds it for bfloat16."""
  return dropout_lib.Dropout(rate, seed=seed, dtype="mixed_bfloat16")


def _train_call(layer, x, jit):
  return tf.function(lambda t: layer(t, training=True), jit_compile=jit)(x)


def test_bfloat16_outside_xla_uses_the_compiled_hash():
  # Two layers with the same seed draw the same seeds: outside XLA the
  # bfloat16 one must give the hash mask the XLA-compiled path gives.
  x = tf.ones([4, 2, 32, 32], tf.bfloat16)
  plain = _train_call(_bf16_layer(0.3, seed=5), x, jit=False)
  xla = _train_call(_bf16_layer(0.3, seed=5), x, jit=True)
  assert plain.dtype == tf.bfloat16
  np.testing.assert_array_equal(plain.numpy(), xla.numpy())
  # float32 outside XLA keeps Keras' (Philox) mask, which is another one.
  x32 = tf.cast(x, tf.float32)
  plain32 = _train_call(dropout_lib.Dropout(0.3, seed=5), x32, jit=False)
  xla32 = _train_call(dropout_lib.Dropout(0.3, seed=5), x32, jit=True)
  np.testing.assert_array_equal(xla32.numpy() != 0, xla.numpy() != 0)
  assert (plain32.numpy() != xla32.numpy()).mean() > 0.2


def test_bfloat16_rate_and_gradient_outside_xla():
  rate = 0.25
  x = tf.Variable(tf.fill([8, 4, 64, 64], tf.constant(1.5, tf.bfloat16)))
  layer = _bf16_layer(rate, seed=9)

  @tf.function
  def out_and_grad():
    with tf.GradientTape() as tape:
      out = layer(x, training=True)
      loss = tf.reduce_sum(tf.cast(out, tf.float32) * 3.0)
    return out, tape.gradient(loss, x)
  out, grad = (t.numpy().astype(np.float32) for t in out_and_grad())
  kept = out != 0
  # 131,072 draws: 5 standard deviations of the kept fraction.
  assert abs(kept.mean() - (1 - rate)) < 5 * np.sqrt(
      rate * (1 - rate) / out.size)
  np.testing.assert_array_equal(out[kept], np.float32(1.5 / (1 - rate)))
  # d(sum 3 * dropout(x)) / dx: 3 / (1 - rate) where kept, 0 elsewhere.
  np.testing.assert_array_equal(grad, np.where(kept, 3.0 / (1 - rate), 0.0))
