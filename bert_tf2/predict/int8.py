"""int8 inference: our model exported to ONNX, dense weights quantized to int8.

A forward function (ids, mask, segment ids -> outputs) is converted by
tf2onnx with a dynamic [batch, seq] input shape, then
`onnxruntime.quantization.quantize_dynamic` stores every MatMul weight as
int8 (activations quantized per batch at run time); embeddings,
LayerNorm, softmax and GELU stay float32.

ONNX Runtime rather than TensorFlow: TensorFlow on CPU has no fast int8
matmul (docs/performance.md). The packages are the optional extra `int8`.

Example:
  >>> import modeling, numpy as np, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=16,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
  >>> bert = modeling.BertModel(cfg, attention_layout="matmul")
  >>> def pooled(ids, mask, segments):
  ...   return (bert({"input_ids": ids, "input_mask": mask,
  ...                 "token_type_ids": segments})["pooled_output"],)
  >>> model = quantize(pooled)                            # doctest: +SKIP
  >>> ids = np.ones([2, 5], np.int32)
  >>> model(ids, ids, 0 * ids)[0].shape                   # doctest: +SKIP
  (2, 16)
"""

import os
import tempfile

import numpy as np

from bert_tf2.common import InputError
from bert_tf2.predict import onnx_graph
from tokenization import atomic

INPUT_NAMES = ("input_ids", "input_mask", "segment_ids")
OPSET = 17
EXTRA_HINT = ("int8 inference needs the optional packages onnxruntime, "
              "tf2onnx and onnx: pip install 'bert-tf2[int8]'")


def require():
  """Imports the int8 extra; returns (onnxruntime, tf2onnx, quantization).

  Raises:
    InputError: one of the packages is not installed (one line naming them).
  """
  try:
    import onnxruntime  # pylint: disable=g-import-not-at-top
    from onnxruntime import quantization  # pylint: disable=g-import-not-at-top
    import tf2onnx  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise InputError("%s (%s)" % (EXTRA_HINT, e)) from None
  return onnxruntime, tf2onnx, quantization


def export_onnx(forward, path, quantize_weights=True):
  """Writes forward(input_ids, input_mask, segment_ids) as an ONNX model.

  Args:
    forward: Python function of three int32 [batch, seq] Tensors returning
      a tuple of Tensors (the graph's outputs, in that order).
    path: the .onnx file to write (atomically; its directory is made
      first if missing).
    quantize_weights: store the MatMul weights as int8 (`quantize_file`);
      False keeps the float32 model.

  Returns:
    path.
  """
  import onnx  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  _, tf2onnx, _ = require()
  # Before the conversion, so a new directory does not fail it at the end.
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  specs = [tf.TensorSpec([None, None], tf.int32, name=n) for n in INPUT_NAMES]
  fn = tf.function(forward, input_signature=specs, autograph=False)
  with tempfile.TemporaryDirectory(prefix="bert_onnx_") as tmp:
    float_path = os.path.join(tmp, "float32.onnx")
    # tf2onnx's lowering of tf.nn.moments runs slower in ONNX Runtime than
    # one LayerNormalization node (docs/performance.md).
    model, _ = tf2onnx.convert.from_function(
        fn, input_signature=specs, opset=OPSET)
    onnx_graph.fuse_layer_norms(model)
    if quantize_weights:
      onnx.save(model, float_path)
      quantize_file(float_path, path)
    else:
      onnx_graph.fuse_gelus(model)
      with atomic.atomic_path(path) as out:
        onnx.save(model, out)
  return path


def quantize_file(float_path, path):
  """Writes the dynamic int8 quantization of a float32 .onnx file to path.

  Weights int8, one scale per output column, 7-bit: x86 CPUs without VNNI
  multiply uint8 by int8 with a 16-bit saturating add, which full 8-bit
  weights can overflow (the quality of each choice: docs/performance.md).
  """
  import onnx  # pylint: disable=g-import-not-at-top
  _, _, quantization = require()
  with atomic.atomic_path(path) as out:
    quantization.quantize_dynamic(
        float_path, out, weight_type=quantization.QuantType.QInt8,
        per_channel=True, reduce_range=True)
    # GELU fused after quantizing: the quantizer's type inference does not
    # know ONNX Runtime's own FastGelu.
    model = onnx.load(out)
    if onnx_graph.fuse_gelus(model):
      onnx.save(model, out)
  return path


class OnnxModel(object):
  """An ONNX Runtime session (of `export_onnx`'s .onnx file `path`) called
  like the TF forward function."""

  def __init__(self, path):
    onnxruntime, _, _ = require()
    self.path = path
    self.session = onnxruntime.InferenceSession(
        path, providers=["CPUExecutionProvider"])
    names = [i.name for i in self.session.get_inputs()]
    if sorted(names) != sorted(INPUT_NAMES):
      raise InputError("%s: expected inputs %s, got %s" % (
          path, ", ".join(INPUT_NAMES), ", ".join(names)))

  def __call__(self, input_ids, input_mask, segment_ids):
    """Returns the model's outputs: tuple of numpy arrays."""
    feeds = {name: np.asarray(value, np.int32) for name, value in
             zip(INPUT_NAMES, (input_ids, input_mask, segment_ids))}
    return tuple(self.session.run(None, feeds))


def quantize(forward):
  """`export_onnx` (int8, a temporary file) loaded as an `OnnxModel`."""
  with tempfile.TemporaryDirectory(prefix="bert_int8_") as tmp:
    return OnnxModel(export_onnx(forward, os.path.join(
        tmp, "model_int8.onnx")))
