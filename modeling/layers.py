"""Leaf layers whose variables carry the original checkpoint names.

Every layer of this package implements `original_variables()`, a dict from a
name relative to the layer's scope (e.g. "dense/kernel") to its variable; a
"root" layer (`BertModel`, heads) also has `original_scope` (e.g. "bert",
"cls/predictions"). `modeling.original_variable_names(model)` joins them
into full names like "bert/encoder/layer_0/attention/self/query/kernel".

Variables are created in the constructor (all shapes are known from the
config), so a freshly built model can be loaded from a checkpoint at once,
and under a `tf.distribute` scope they are created as distributed variables.

Mixed precision: layers follow the Keras dtype policy; matmuls run in the
compute dtype (e.g. bfloat16) while LayerNorm and softmax run in float32.
Every composite layer hands its own policy (`dtype=` of its constructor, or
the global policy) to the sublayers it creates, so
`BertModel(config, dtype="mixed_bfloat16")` computes in bfloat16 throughout
while every variable stays float32.

Serialization: every layer and model of the project is registered with
`@serializable` (Keras package "bert_tf2"), so `.keras` files load with
plain `keras.models.load_model(path)`, without `custom_objects`.
"""

import keras
import tensorflow as tf

from modeling import activations
from modeling import ops
from modeling import tf_internals


SERIALIZATION_PACKAGE = "bert_tf2"


def serializable(cls):
  """Class decorator: registers `cls` for Keras (de)serialization."""
  return keras.saving.register_keras_serializable(
      package=SERIALIZATION_PACKAGE)(cls)


def iter_layers(obj):
  """Yields every Keras layer in `obj` (a layer/model, or a list/dict of them,
  any depth), each layer followed by its nested sublayers.

  Example:
    >>> d = Dense(2, input_width=3, name="d")
    >>> [l.name for l in iter_layers({"a": [d]})]
    ['d']
  """
  if isinstance(obj, dict):
    for value in obj.values():
      yield from iter_layers(value)
  elif isinstance(obj, (list, tuple)):
    for value in obj:
      yield from iter_layers(value)
  elif isinstance(obj, keras.layers.Layer):
    yield from tf_internals.flatten_layers(obj)


class OriginalNamed(object):
  """Mixin: a layer that knows the original names of its variables."""

  def original_variables(self):
    """Returns {name relative to this layer's scope: variable}."""
    raise NotImplementedError


def nest(prefix, mapping):
  """Prefixes every key of a name->variable dict with `prefix/`."""
  return {"%s/%s" % (prefix, k): v for k, v in mapping.items()}


@serializable
class Dense(keras.layers.Dense, OriginalNamed):
  """Affine layer with variables `kernel` [input_width, units] and `bias`.

  A `keras.layers.Dense` (so Keras' own `enable_lora(rank)` and
  `quantize("int8")` work on it), built in the constructor and computed as
  the original's MatMul -> BiasAdd on a matrix (see `call`). The original
  names are those of the base variables ("kernel", "bias"): LoRA's
  `lora_kernel_a` / `lora_kernel_b` are extra variables (see
  `modeling.lora`).

  Example:
    >>> d = Dense(4, input_width=3, name="dense")
    >>> d(tf.ones([2, 3])).shape
    TensorShape([2, 4])
    >>> sorted(d.original_variables())
    ['bias', 'kernel']
    >>> d.enable_lora(2)
    >>> [v.name for v in d.trainable_weights]
    ['bias', 'lora_kernel_a', 'lora_kernel_b']
  """

  def __init__(self, units, input_width, activation=None,
               initializer_range=0.02, **kwargs):
    super().__init__(
        units, kernel_initializer=ops.create_initializer(initializer_range),
        **kwargs)
    self.input_width = input_width
    self.activation_name = activation
    self.activation = activations.get_activation(activation)
    self.fusable_activation = activations.get_fusable_activation(activation)
    self.training_activation = activations.get_training_activation(
        activation)
    self.initializer_range = initializer_range
    self.build((None, input_width))

  def call(self, inputs, training=None):
    # Float (or LoRA: `kernel` is then base + delta) path; quantized layers
    # go through Keras' own quantized_call instead.
    x = tf.cast(inputs, self.compute_dtype)
    kernel = _constant(self, self._kernel, training)
    if kernel is None:
      kernel = tf.cast(self.kernel, self.compute_dtype)
    if x.shape.ndims == 2:
      return self._affine(x, kernel, training)
    # Reshape to a matrix and back, as the original's reshape_to_matrix
    # does. (tf.einsum("...i,io->...o") has a kernel gradient that
    # materialises a [batch, seq, in, out] tensor: gigabytes per layer.)
    y = self._affine(tf.reshape(x, [-1, self.input_width]), kernel,
                     training)
    y = tf.reshape(y, tf.concat([tf.shape(x)[:-1], [self.units]], axis=0))
    y.set_shape(x.shape[:-1].concatenate([self.units]))
    return y

  def _affine(self, x, kernel, training=None):
    # MatMul -> BiasAdd -> activation on the matrix, the original's op
    # sequence (tf.layers.dense): TF's graph optimizer fuses MatMul+BiasAdd
    # (oneDNN on CPU) and BiasAddGrad is one reduction in the backward pass.
    # (keras.layers.Dense.call uses AddV2, which is not fused.)
    # In inference, and below float32, GELU is written as tf.nn.gelu, which
    # that optimizer fuses too (`activations.get_fusable_activation`); when
    # training below float32 outside XLA it is one XLA cluster per pass
    # instead (`activations.get_training_activation`: the backward pass's
    # 20-odd kernels are what cost there). float32 training keeps the
    # original's ops.
    bias = _constant(self, self.bias, training)
    if bias is None:
      bias = tf.cast(self.bias, self.compute_dtype)
    y = tf.nn.bias_add(tf.matmul(x, kernel), bias)
    if self.fusable_activation is not None and ops.below_float32(y.dtype):
      if training and not tf_internals.in_xla_context():
        return self.training_activation(y)
      return self.fusable_activation(y)
    if self.fusable_activation is not None and not training:
      return self.fusable_activation(y)
    if self.activation is not None:
      y = self.activation(y)
    return y

  def quantize(self, mode=None, type_check=True, config=None):
    """Keras' own quantization (e.g. "int8") of this layer's kernel.

    With LoRA enabled, the update is merged into the float kernel first and
    the adapters dropped (`merge_lora`): the quantized layer is the one
    kernel that a saved file holds, so it reloads exactly. (Keras alone
    keeps float adapters beside the int8 kernel, and its save merges them
    into the int8 kernel and quantizes again: the reloaded model differs.)
    """
    del type_check  # Keras refuses subclasses; this one computes the same.
    if self.lora_enabled:
      self.merge_lora()
    super().quantize(mode, type_check=False, config=config)

  def __delattr__(self, name):
    # Keras' Layer.__delattr__ runs a full gc.collect() after deleting a
    # variable (for device buffers); quantize and merge_lora delete one or
    # two per Dense, so a model's quantize ran one collection per layer,
    # each slow with TensorFlow's graphs in memory (MiniLM's quantize: 6.8 s
    # before, 0.1 s after). The variable is untracked and deleted as there;
    # its buffer goes with its last reference.
    obj = getattr(self, name, None)
    if isinstance(obj, keras.Variable):
      self._untrack_variable(obj)
      super(keras.layers.Layer, self).__delattr__(name)  # pylint: disable=bad-super-call
    else:
      super().__delattr__(name)

  def merge_lora(self):
    """kernel += lora_alpha / rank * lora_kernel_a @ lora_kernel_b; LoRA
    off, its two variables removed (the kernel stays frozen)."""
    self._kernel.assign(tf.convert_to_tensor(self.kernel))
    del self.lora_kernel_a
    del self.lora_kernel_b
    self.lora_enabled = False
    self.lora_rank = self.lora_alpha = None

  def original_variables(self):
    return {"kernel": self._kernel, "bias": self.bias}

  def get_config(self):
    config = keras.layers.Layer.get_config(self)
    config.update(units=self.units, input_width=self.input_width,
                  activation=self.activation_name,
                  initializer_range=self.initializer_range)
    if self.lora_rank:
      config.update(lora_rank=self.lora_rank, lora_alpha=self.lora_alpha)
    return config

  @classmethod
  def from_config(cls, config):
    return cls(**config)


class ConstantKernels(object):
  """While active (`with ConstantKernels() as frozen:`), a `Dense` traced
  below float32 outside training takes its kernel and bias, cast to the
  compute dtype, as graph constants instead of reading its variables:
  TensorFlow's oneDNN MatMul packs a constant weight once, for the CPU's
  matrix units (`bert_tf2.common.frozen_weights`). A `LayerNorm` there
  in bfloat16 takes its gamma and beta (float32) and runs
  `ops.fusable_layer_norm`, which oneDNN fuses into one kernel.
  `frozen.variables`: the variables so taken, to tell when they change;
  `frozen.constants`: their constants, one a variable (a layer called
  again in the same trace, on another part of the batch, reuses its own).
  """

  _active = []

  def __init__(self):
    self.variables = []
    self.constants = []

  def __enter__(self):
    ConstantKernels._active.append(self)
    return self

  def __exit__(self, *unused):
    ConstantKernels._active.pop()


def _constant(dense, variable, training):
  """`variable` (`dense`'s kernel or bias) cast to its compute dtype as a
  graph constant, or None: outside `ConstantKernels`, in training, with
  LoRA (the kernel is then base + delta), in float32, eagerly, or for a
  bias that is all zeros (TensorFlow's graph optimizer drops a BiasAdd of
  a constant zero, and with it the MatMul + BiasAdd fusion: 27% slower on
  MiniLM)."""
  if (not _in_frozen_trace(training) or dense.lora_enabled or
      not ops.below_float32(dense.compute_dtype)):
    return None
  if variable is dense.bias:
    with tf.init_scope():  # The variable's value now, not a graph read.
      if not tf.reduce_any(variable != 0):
        return None
  return _taken_constant(variable, dense.compute_dtype)


def _taken_constant(variable, dtype):
  """`variable`'s value now cast to `dtype`, as a graph constant taken by
  the active `ConstantKernels` (the same constant for the variable's every
  use in one trace)."""
  taken = ConstantKernels._active[-1]  # pylint: disable=protected-access
  for seen, constant in zip(taken.variables, taken.constants):
    if seen is variable:  # The layer called again in the same trace.
      return constant
  with tf.init_scope():  # The variable's value now, not a graph read.
    value = tf.cast(variable, dtype).numpy()
  taken.variables.append(variable)
  taken.constants.append(tf.constant(value))
  return taken.constants[-1]


def _in_frozen_trace(training):
  """Whether a layer is being traced for inference in a `ConstantKernels`
  block (its weights then taken as constants)."""
  return (bool(ConstantKernels._active) and not training and  # pylint: disable=protected-access
          not tf.executing_eagerly())


def _frozen_norm(norm, inputs, training):
  """Whether `norm` (a LayerNorm) runs `ops.fusable_layer_norm` on
  inputs: in a `ConstantKernels` inference trace, on a rank-3 bfloat16
  input (float16's range would not take the input's scale)."""
  return (_in_frozen_trace(training) and norm.compute_dtype == "bfloat16"
          and inputs.shape.rank == 3)


@serializable
class LayerNorm(keras.layers.Layer, OriginalNamed):
  """Layer normalisation (epsilon 1e-12) with `gamma` and `beta`.

  Computed in float32 whatever the dtype policy (below float32 in the
  centred form, `ops.centered_layer_norm`, or in bfloat16 in a
  `ConstantKernels` trace `ops.fusable_layer_norm`); the output has the
  layer's compute dtype.
  """

  def __init__(self, width, epsilon=1e-12, **kwargs):
    super().__init__(**kwargs)
    self.width = width
    self.epsilon = epsilon
    # autocast=False: the parameters stay float32 under mixed precision.
    self.beta = self.add_weight(name="beta", shape=(width,),
                                initializer="zeros", autocast=False)
    self.gamma = self.add_weight(name="gamma", shape=(width,),
                                 initializer="ones", autocast=False)
    self.built = True

  def call(self, inputs, training=None):
    if _frozen_norm(self, inputs, training):
      # In a `ConstantKernels` trace: oneDNN's fused kernel.
      return tf.cast(ops.fusable_layer_norm(
          inputs, _taken_constant(self.gamma, tf.float32),
          _taken_constant(self.beta, tf.float32), self.epsilon),
                     self.compute_dtype)
    # Below float32 the centred form: fewer passes, the same maths.
    norm = (ops.centered_layer_norm if ops.below_float32(self.compute_dtype)
            else ops.layer_norm)
    out = norm(tf.cast(inputs, tf.float32), self.gamma, self.beta,
               self.epsilon)
    return tf.cast(out, self.compute_dtype)

  def original_variables(self):
    return {"gamma": self.gamma, "beta": self.beta}

  def get_config(self):
    config = super().get_config()
    config.update(width=self.width, epsilon=self.epsilon)
    return config
