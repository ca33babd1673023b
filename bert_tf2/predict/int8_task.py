"""int8 as a runtime of the raw-string model: `int8_text_model(model)`.

The text model's task is exported to ONNX and quantized
(`bert_tf2.predict.int8`); `Int8Task` stands in for it: the same call (a
feature dict -> the task's outputs) run by the ONNX Runtime session
through `tf.numpy_function`, so the text model's preprocessor and answers
stay its own. Other attributes are the float32 task's. An int8 model has
no SavedModel or `.keras` form (`check_exportable`) and does not train.

Example:
  >>> from bert_tf2 import models
  >>> model = models.load("/tmp/mrpc_output", precision="int8")  # doctest: +SKIP
  >>> model.predict(["a gripping film"])                          # doctest: +SKIP
"""

import types

import keras
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.predict import int8 as int8_lib

# The task inputs the ONNX graph takes (`int8.INPUT_NAMES`), in order.
FEATURES = int8_lib.INPUT_NAMES


class Int8Task(keras.layers.Layer):
  """Task model `task`'s forward as an int8 ONNX Runtime session (see
  module). onnx_model: an `int8.OnnxModel` of `int8_forward(task)`."""

  is_int8 = True

  def __init__(self, task, onnx_model, **kwargs):
    kwargs.setdefault("name", task.name + "_int8")
    super().__init__(**kwargs)
    structure, dtypes, shapes = _output_spec(task)
    # A plain holder: Keras does not track the float32 task's weights here
    # (the int8 model's are in the ONNX file).
    self._int8 = types.SimpleNamespace(
        task=task, onnx=onnx_model, structure=structure, dtypes=dtypes,
        shapes=shapes)
    self.built = True

  def __getattr__(self, name):
    holder = self.__dict__.get("_int8")
    if holder is None or name.startswith("__"):
      raise AttributeError(name)
    return getattr(holder.task, name)

  @property
  def onnx_path(self):
    """The .onnx file the session runs."""
    return self._int8.onnx.path

  def call(self, features, training=False):
    del training  # Inference only.
    holder = self._int8
    inputs = [tf.cast(features[k], tf.int32) for k in FEATURES]

    def run(*arrays):
      return [np.asarray(a, d.as_numpy_dtype)
              for a, d in zip(holder.onnx(*arrays), holder.dtypes)]
    flat = tf.numpy_function(run, inputs, list(holder.dtypes),
                             stateful=False, name="onnx_runtime")
    if not isinstance(flat, (list, tuple)):  # One output, eager: a Tensor.
      flat = [flat]
    for tensor, shape in zip(flat, holder.shapes):
      tensor.set_shape(shape)
    return tf.nest.pack_sequence_as(holder.structure, flat)


def _probe(task, batch, length):
  features = {k: tf.ones([batch, length], tf.int32) for k in FEATURES}
  return task(features, training=False)


def _output_spec(task):
  """(structure, dtypes, shapes) of task's outputs: shapes with None where
  the batch or the length changes them (two probes of other sizes)."""
  a = tf.nest.flatten(_probe(task, 1, 2))
  b = tf.nest.flatten(_probe(task, 2, 3))
  shapes = [[x if x == y else None for x, y in zip(p.shape, q.shape)]
            for p, q in zip(a, b)]
  return (_probe(task, 1, 2), tuple(tf.as_dtype(t.dtype) for t in a),
          shapes)


def _twin(task):
  """task rebuilt in float32 with attention_layout="matmul" where it takes
  one (the layout ONNX Runtime runs fastest), same weights."""
  config = task.get_config()
  if "attention_layout" in config:
    config["attention_layout"] = "matmul"
  config.pop("dtype", None)
  twin = type(task).from_config(config)
  _probe(twin, 1, 2)
  twin.set_weights(task.get_weights())
  return twin


def int8_forward(task):
  """forward(input_ids, input_mask, segment_ids) -> the flat tuple of
  task's outputs, on its twin (`export_onnx`'s function)."""
  twin = _twin(task)

  def forward(input_ids, input_mask, segment_ids):
    out = twin({"input_ids": input_ids, "input_mask": input_mask,
                "segment_ids": segment_ids}, training=False)
    return tuple(tf.nest.flatten(out))
  return forward


def check_task(task):
  """task itself if its forward takes the three features of `FEATURES`.

  Raises:
    InputError: it needs others (int8 is not offered for it).
  """
  try:
    _probe(task, 1, 2)
  except (KeyError, ValueError, TypeError) as e:
    raise InputError("precision='int8': not offered for %s (its forward "
                     "needs more than %s: %s)" % (
                         type(task).__name__, ", ".join(FEATURES), e))
  return task


def int8_text_model(model, onnx_file=None):
  """Text model `model` (float32) with its task run as int8 (`Int8Task`).

  onnx_file: the .onnx file: loaded where it exists (an earlier
  `int8_text_model` or `export_onnx` of the same model), else written
  there; None: a temporary file.
  """
  int8_lib.require()
  task = check_task(model.task)
  if onnx_file and tf.io.gfile.exists(onnx_file):
    session = int8_lib.OnnxModel(onnx_file)
  elif onnx_file:
    session = int8_lib.OnnxModel(int8_lib.export_onnx(
        int8_forward(task), onnx_file))
  else:
    session = int8_lib.quantize(int8_forward(task))
  config = {k: v for k, v in model.get_config().items()
            if k not in ("preprocessor", "task")}
  int8_model = type(model)(model.preprocessor, Int8Task(task, session),
                           **config)
  for name in ("trims_padding", "sort_by_length"):  # Set on the instance.
    if name in vars(model):
      setattr(int8_model, name, vars(model)[name])
  return int8_model


def export_onnx(model, path, int8=True):
  """Writes text model `model`'s task (token ids in; no tokenizer) as an
  ONNX file: inputs input_ids, input_mask, segment_ids int32 [batch, seq],
  outputs the task's, flattened; int8=True quantizes the dense weights.
  Returns path."""
  if getattr(model.task, "is_int8", False):
    raise InputError("export_onnx(%s): the model runs int8 already; its "
                     "file is %s" % (path, model.task.onnx_path))
  task = check_task(model.task)
  return int8_lib.export_onnx(int8_forward(task), path,
                              quantize_weights=int8)


def check_exportable(model, what):
  """Refuses (one InputError line) to write `what` (a SavedModel, a
  .keras file) of an int8 model, which runs in ONNX Runtime."""
  task = getattr(model, "task", model)
  if getattr(task, "is_int8", False):
    raise InputError("%s: an int8 model runs in ONNX Runtime and has no "
                     "such form; load it in float32 (or bfloat16) to write "
                     "one, or use its .onnx file %s" % (what, task.onnx_path))

