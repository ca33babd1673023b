"""`modeling.LayerNorm`: float32 runs the original's `ops.layer_norm`; below
float32 the centred form (`ops.centered_layer_norm`, fewer passes), the
same maths within float32 round-off; in a `ConstantKernels` trace (predict
below float32) `ops.fusable_layer_norm`, which TensorFlow fuses into
oneDNN's one kernel, at BERT's epsilon."""

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.python.grappler import tf_optimizer
from tensorflow.python.util import _pywrap_util_port

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


def _small_spread():
  """[4, 5, 64] rows of spread 0.02 (an embedding sum's) around means up
  to 3: where an epsilon of 1e-3 instead of 1e-12 changes the answer."""
  rng = np.random.RandomState(3)
  x = rng.normal(scale=0.02, size=(4, 5, 64))
  return (x + rng.uniform(-3.0, 3.0, size=(4, 5, 1))).astype(np.float32)


def _optimized_ops(function, spec):
  """The op types of `function` traced for `spec` after TensorFlow's graph
  optimizer (grappler, as a tf.function runs it)."""
  concrete = tf.function(function).get_concrete_function(spec)
  meta = tf.compat.v1.train.export_meta_graph(
      graph_def=concrete.graph.as_graph_def(), graph=concrete.graph)
  meta.collection_def["train_op"].node_list.value.extend(
      [t.name for t in concrete.outputs])
  graph = tf_optimizer.OptimizeGraph(config_pb2.ConfigProto(), meta)
  return {node.op for node in graph.node}


@pytest.mark.parametrize("data", [_small_spread, _inputs])
def test_the_fusable_form_is_fused_at_berts_epsilon(data):
  # gamma and beta as NumPy arrays: graph constants where traced (an eager
  # tensor would be captured as an input, and not fused).
  rng = np.random.RandomState(4)
  gamma = rng.uniform(0.5, 2.0, 64).astype(np.float32)
  beta = rng.normal(size=64).astype(np.float32)
  x = tf.constant(data(), tf.bfloat16)
  spec = tf.TensorSpec([None, None, 64], tf.bfloat16)
  fusable = lambda x: ops.fusable_layer_norm(x, tf.constant(gamma),
                                             tf.constant(beta))
  out = tf.function(fusable)(x).numpy()
  want = _reference(tf.cast(x, tf.float32).numpy(), gamma, beta)
  # float32 maths on the bfloat16 input: far under bfloat16's rounding.
  np.testing.assert_allclose(out, want, atol=2e-4, rtol=1e-4)
  if not _pywrap_util_port.IsMklEnabled():
    return  # No oneDNN (not an x86 build): the ops run one by one.
  assert "_MklLayerNorm" in _optimized_ops(fusable, spec)
  # The control: the pattern at the graph's own epsilon 1e-12, unscaled,
  # is fused too, and the kernel's epsilon 1e-3 then moves the answer (by
  # whole units where the spread is an embedding sum's).
  def unscaled(x):
    x = tf.cast(x, tf.float32)
    mean, variance = tf.nn.moments(x, axes=[2], keepdims=True)
    return tf.nn.batch_normalization(x, mean, variance, tf.constant(beta),
                                     tf.constant(gamma), 1e-12)
  assert "_MklLayerNorm" in _optimized_ops(unscaled, spec)
  error = np.abs(tf.function(unscaled)(x).numpy() - want).max()
  assert error > (0.5 if data is _small_spread else 1e-3), error


def test_the_layer_fuses_in_a_constant_kernels_trace_only():
  layer = layers.LayerNorm(64, dtype="mixed_bfloat16")
  rng = np.random.RandomState(5)
  layer.gamma.assign(rng.uniform(0.5, 2.0, 64))
  layer.beta.assign(rng.normal(size=64))
  x = tf.constant(_small_spread(), tf.bfloat16)
  spec = tf.TensorSpec([None, None, 64], tf.bfloat16)

  def frozen(x):
    with layers.ConstantKernels() as taken:
      out = layer(x)
    assert taken.variables == [layer.gamma, layer.beta]
    return out
  fused = tf.function(frozen)(x)
  plain = layer(x)
  assert fused.dtype == plain.dtype == tf.bfloat16
  np.testing.assert_allclose(  # Two bfloat16 roundings of float32 maths.
      tf.cast(fused, tf.float32).numpy(), tf.cast(plain, tf.float32).numpy(),
      atol=0.02, rtol=0.01)
  if _pywrap_util_port.IsMklEnabled():
    assert "_MklLayerNorm" in _optimized_ops(frozen, spec)
  # In training, or in float16 (whose range would not take the scale),
  # the layer keeps its own ops.
  def training(x):
    with layers.ConstantKernels():
      return layer(x, training=True)
  assert "_MklLayerNorm" not in _optimized_ops(training, spec)
  half = layers.LayerNorm(64, dtype="mixed_float16")
  half.set_weights(layer.get_weights())
  def frozen_half(x):
    with layers.ConstantKernels() as taken:
      out = half(x)
    assert not taken.variables
    return out
  half_x = tf.cast(x, tf.float16)
  np.testing.assert_allclose(
      tf.function(frozen_half)(half_x).numpy(), half(half_x).numpy())
