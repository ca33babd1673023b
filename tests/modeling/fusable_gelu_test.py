"""Below float32, `layers.Dense` computes GELU as tf.nn.gelu (the form
TensorFlow's oneDNN remapper fuses with the MatMul + BiasAdd before it;
issue 48); in float32 it keeps the original's op sequence exactly."""

import numpy as np
import pytest
import tensorflow as tf

from modeling import activations
from modeling import layers


def _dense(dtype, activation):
  layer = layers.Dense(48, input_width=32, activation=activation,
                       initializer_range=0.5, dtype=dtype)
  layer.bias.assign(np.linspace(-1.0, 1.0, 48).astype(np.float32))
  return layer


def _pre_activation(layer, x):
  dtype = layer.compute_dtype
  return tf.nn.bias_add(tf.matmul(tf.cast(x, dtype),
                                  tf.cast(layer.kernel, dtype)),
                        tf.cast(layer.bias, dtype))


X = np.random.RandomState(0).normal(0.0, 1.0, (64, 32)).astype(np.float32)


def _spy_on_tf_nn_gelu(monkeypatch):
  calls, real = [], tf.nn.gelu

  def spy(x, approximate=False):
    calls.append((x.dtype, approximate))
    return real(x, approximate=approximate)
  monkeypatch.setattr(tf.nn, "gelu", spy)
  return calls


@pytest.mark.parametrize("name,approximate", [("gelu", True),
                                              ("gelu_exact", False)])
def test_bfloat16_dense_uses_tf_nn_gelu(name, approximate, monkeypatch):
  layer = _dense("mixed_bfloat16", name)
  calls = _spy_on_tf_nn_gelu(monkeypatch)
  got = layer(X).numpy()
  assert calls == [(tf.bfloat16, approximate)]
  want = tf.nn.gelu(_pre_activation(layer, X),
                    approximate=approximate).numpy()
  np.testing.assert_array_equal(got, want)
  # ... which is the original's function up to bfloat16 round-off.
  ref = activations.get_activation(name)(_pre_activation(
      layer, X)).numpy().astype(np.float32)
  np.testing.assert_allclose(got.astype(np.float32), ref, atol=0.05,
                             rtol=0.02)


def test_float32_dense_keeps_the_original_gelu_ops(monkeypatch):
  layer = _dense("float32", "gelu")
  calls = _spy_on_tf_nn_gelu(monkeypatch)
  got = layer(X).numpy()
  assert not calls
  np.testing.assert_array_equal(
      got, activations.gelu(_pre_activation(layer, X)).numpy())


def test_other_activations_are_not_rewritten():
  assert activations.get_fusable_activation("tanh") is None
  assert activations.get_fusable_activation(None) is None
  layer = _dense("mixed_bfloat16", "tanh")
  np.testing.assert_array_equal(
      layer(X).numpy(), tf.tanh(_pre_activation(layer, X)).numpy())
