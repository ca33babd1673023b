"""onnx_graph.fuse_layer_norms and fuse_gelus on tf2onnx's lowering of our ops.

The graph comes from tf2onnx converting `modeling.ops.layer_norm` (what
LayerNorm layers run); fused, it must hold one LayerNormalization node and
give TensorFlow's outputs in ONNX Runtime. A pattern whose intermediate
value is read elsewhere (here: a graph output) must be left alone. Needs the
`int8` extra (part of the `test` extra).
"""

import numpy as np
import pytest
import onnx
import onnxruntime as ort
import tensorflow as tf
import tf2onnx

from bert_tf2.predict import onnx_graph
from modeling import activations
from modeling import ops

WIDTH = 8
RNG = np.random.RandomState(0)
GAMMA = RNG.uniform(0.5, 2, WIDTH).astype(np.float32)
BETA = RNG.normal(size=WIDTH).astype(np.float32)


def _exported():
  spec = tf.TensorSpec([None, None, WIDTH], tf.float32, name="x")

  @tf.function(input_signature=[spec])
  def forward(x):
    return ops.layer_norm(x * 2.0, tf.constant(GAMMA), tf.constant(BETA))
  model, _ = tf2onnx.convert.from_function(forward, input_signature=[spec],
                                           opset=17)
  return model


def _run(model, x):
  session = ort.InferenceSession(model.SerializeToString(),
                                 providers=["CPUExecutionProvider"])
  return session.run(None, {"x": x})


def test_fuses_the_layer_norm_and_keeps_the_outputs():
  model = _exported()
  x = RNG.normal(size=(2, 5, WIDTH)).astype(np.float32) * 3
  before = _run(model, x)[0]
  assert onnx_graph.fuse_layer_norms(model) == 1
  types = [n.op_type for n in model.graph.node]
  assert types.count("LayerNormalization") == 1
  assert "GlobalAveragePool" not in types and "Sqrt" not in types
  onnx.checker.check_model(model)
  after = _run(model, x)[0]
  expected = ops.layer_norm(tf.constant(x * 2.0), GAMMA, BETA).numpy()
  np.testing.assert_allclose(after, expected, atol=1e-5)
  np.testing.assert_allclose(after, before, atol=1e-5)


def test_an_intermediate_read_elsewhere_blocks_the_fusion():
  model = _exported()
  variance = [n for n in model.graph.node
              if n.op_type == "GlobalAveragePool"][1].output[0]
  model.graph.output.append(onnx.helper.make_tensor_value_info(
      variance, onnx.TensorProto.FLOAT, None))
  count = len(model.graph.node)
  assert onnx_graph.fuse_layer_norms(model) == 0
  assert len(model.graph.node) == count
  x = RNG.normal(size=(1, 3, WIDTH)).astype(np.float32)
  assert len(_run(model, x)) == 2


# A dense layer's GELU in the two forms the model computes: the original's
# op sequence (float32 training) and tf.nn.gelu's (inference).
GELUS = {"original": activations.gelu,
         "tf_nn": lambda x: tf.nn.gelu(x, approximate=True)}


def _exported_gelu(form="original"):
  spec = tf.TensorSpec([None, WIDTH], tf.float32, name="x")

  @tf.function(input_signature=[spec])
  def forward(x):
    # Its input a matmul plus bias.
    return GELUS[form](tf.matmul(x, tf.constant(KERNEL)) + tf.constant(BETA))
  model, _ = tf2onnx.convert.from_function(forward, input_signature=[spec],
                                           opset=17)
  return model


KERNEL = RNG.normal(size=(WIDTH, WIDTH)).astype(np.float32)


@pytest.mark.parametrize("form", sorted(GELUS))
def test_fuses_the_gelu_and_keeps_the_outputs(form):
  model = _exported_gelu(form)
  x = RNG.normal(size=(64, WIDTH)).astype(np.float32) * 2
  before = _run(model, x)[0]
  assert onnx_graph.fuse_gelus(model) == 1
  types = [n.op_type for n in model.graph.node]
  assert types.count("FastGelu") == 1
  assert "Tanh" not in types and "Pow" not in types
  # The fused pattern's constants go too (ONNX Runtime warns about each
  # initializer nothing reads).
  read = {i for n in model.graph.node for i in n.input}
  assert all(t.name in read for t in model.graph.initializer)
  onnx.checker.check_model(model)
  after = _run(model, x)[0]
  expected = activations.gelu(
      tf.matmul(x, KERNEL) + BETA).numpy()
  np.testing.assert_allclose(after, expected, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("form", sorted(GELUS))
def test_a_gelu_read_elsewhere_or_with_other_constants_stays(form):
  model = _exported_gelu(form)
  tanh = [n for n in model.graph.node if n.op_type == "Tanh"][0]
  model.graph.output.append(onnx.helper.make_tensor_value_info(
      tanh.output[0], onnx.TensorProto.FLOAT, None))
  assert onnx_graph.fuse_gelus(model) == 0
  # Another cubic coefficient is another function: not a GELU.
  model = _exported_gelu(form)
  for t in model.graph.initializer:
    value = onnx.numpy_helper.to_array(t)
    if value.size == 1 and abs(float(value.reshape(-1)[0]) - 0.044715) < 1e-7:
      t.CopyFrom(onnx.numpy_helper.from_array(
          np.full_like(value, 0.05), t.name))
  assert onnx_graph.fuse_gelus(model) == 0
