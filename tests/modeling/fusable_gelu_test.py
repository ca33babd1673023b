"""Below float32 and in float32 inference, `layers.Dense` computes GELU as
tf.nn.gelu (the form TensorFlow's oneDNN remapper fuses with the MatMul +
BiasAdd before it; issue 48), within float32 round-off of the original's
op sequence, which float32 training keeps exactly."""

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


def test_float32_inference_uses_tf_nn_gelu(monkeypatch):
  layer = _dense("float32", "gelu")
  calls = _spy_on_tf_nn_gelu(monkeypatch)
  got = tf.function(lambda x: layer(x, training=False))(X).numpy()
  assert calls == [(tf.float32, True)]
  np.testing.assert_allclose(
      got, activations.gelu(_pre_activation(layer, X)).numpy(), rtol=1e-6,
      atol=1e-6)


def test_float32_training_keeps_the_original_gelu_ops(monkeypatch):
  layer = _dense("float32", "gelu")
  calls = _spy_on_tf_nn_gelu(monkeypatch)
  got = layer(X, training=True).numpy()
  assert not calls
  np.testing.assert_array_equal(
      got, activations.gelu(_pre_activation(layer, X)).numpy())


def test_other_activations_are_not_rewritten():
  assert activations.get_fusable_activation("tanh") is None
  assert activations.get_fusable_activation(None) is None
  layer = _dense("mixed_bfloat16", "tanh")
  np.testing.assert_array_equal(
      layer(X).numpy(), tf.tanh(_pre_activation(layer, X)).numpy())


def _compiled_functions(concrete):
  """Names of the functions in `concrete`'s graph that XLA must compile."""
  graph_def = concrete.graph.as_graph_def()
  return sorted(f.signature.name for f in graph_def.library.function
                if f.attr["_XlaMustCompile"].b)


def _gradient_graph(layer, training):
  @tf.function
  def step(x):
    with tf.GradientTape() as tape:
      y = layer(x, training=training)
      loss = tf.reduce_sum(tf.cast(y, tf.float32) ** 2)
    return tape.gradient(loss, layer.kernel)
  return step.get_concrete_function(tf.TensorSpec([64, 32], tf.float32))


def test_bfloat16_training_runs_gelu_and_its_gradient_as_xla_clusters():
  # Training below float32 outside XLA: one cluster for GELU, one for its
  # gradient, instead of about 20 elementwise kernels.
  layer = _dense("mixed_bfloat16", "gelu")
  assert len(_compiled_functions(_gradient_graph(layer, True))) == 2
  # Inference keeps tf.nn.gelu (fused with the matmul), float32 the
  # original's ops.
  assert not _compiled_functions(_gradient_graph(layer, False))
  assert not _compiled_functions(_gradient_graph(_dense("float32", "gelu"),
                                                 True))


@pytest.mark.parametrize("name,approximate", [("gelu", True),
                                              ("gelu_exact", False)])
def test_training_gelu_has_gelus_value_and_gradient(name, approximate):
  fn = activations.get_training_activation(name)
  x = tf.constant(np.linspace(-8.0, 8.0, 3201), tf.float32)
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    got = fn(x)
    want = tf.nn.gelu(x, approximate=approximate)
  np.testing.assert_allclose(got.numpy(), want.numpy(), atol=2e-6)
  np.testing.assert_allclose(tape.gradient(got, x).numpy(),
                             tape.gradient(want, x).numpy(), atol=1e-5)
  # Computed in float32, returned in the input's dtype.
  xb = tf.cast(x, tf.bfloat16)
  with tf.GradientTape() as tape:
    tape.watch(xb)
    yb = fn(xb)
  gb = tape.gradient(yb, xb)
  assert yb.dtype == gb.dtype == tf.bfloat16
  x32 = tf.cast(xb, tf.float32)
  with tf.GradientTape() as tape:
    tape.watch(x32)
    ref = tf.nn.gelu(x32, approximate=approximate)
  ref_grad = tape.gradient(ref, x32).numpy()
  # One bfloat16 rounding of the float32 result: 2^-8 relative.
  np.testing.assert_allclose(tf.cast(yb, tf.float32).numpy(), ref.numpy(),
                             rtol=2.0**-8, atol=1e-6)
  # (XLA's tanh is a rational approximation: it reaches -1 a little later
  # than TensorFlow's, a gradient of 4e-6 where float32 gives 0.)
  np.testing.assert_allclose(tf.cast(gb, tf.float32).numpy(), ref_grad,
                             rtol=2.0**-8, atol=1e-5)


def test_bfloat16_training_dense_matches_its_inference_values():
  layer = _dense("mixed_bfloat16", "gelu")
  trained = layer(X, training=True).numpy().astype(np.float32)
  inferred = layer(X, training=False).numpy().astype(np.float32)
  # The same function; float32 inside the cluster, so within one bfloat16
  # rounding of tf.nn.gelu's bfloat16 arithmetic.
  np.testing.assert_allclose(trained, inferred, rtol=2.0**-6, atol=2e-2)
  assert activations.get_training_activation("relu") is None
