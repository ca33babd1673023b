"""Dropout that stays fast when the training step is compiled with XLA.

Outside XLA in float32 this is Keras' dropout (TensorFlow's Philox
kernel). Inside an XLA-compiled function (`jit_compile=True`, e.g. the
runner's train step with `--jit_compile`), XLA:CPU lowers TensorFlow's
stateless random ops to very slow code: measured here, 0.8 s for the
dropout mask of one attention layer ([16, 12, 128, 128]), which made an XLA train step of the MiniLM shape
slower than the uncompiled one. There we draw the mask from a counter-based
integer hash instead (two rounds of the "lowbias32" hash of the element
index and the seed): a handful of elementwise integer ops that XLA fuses and
vectorises (3 ms for the same mask).

Below float32 (a bfloat16 compute dtype: Keras' mixed_bfloat16) the hash
mask is used outside XLA too, as a small XLA-compiled function of its own
inside the uncompiled step: oneDNN's bfloat16 matmuls run at half speed
under XLA, so the bfloat16 step is not compiled, and there TensorFlow's
Philox mask with its unfused compare, cast and multiplies took about a
fifth of the step (MiniLM shape on an AMD EPYC with AVX512-BF16, A/B in
one process: +11-19% for the pretraining step, +12-33% for fine-tuning).
float32 keeps Keras' dropout outside XLA.

Dropout masks are random in all cases and never match the original's
(TF1's stateful random ops); rates, scaling (kept values divided by
1 - rate) and the per-call fresh mask are the same.

Example:
  >>> import tensorflow as tf
  >>> layer = Dropout(0.5, seed=1)
  >>> x = tf.ones([2, 3])
  >>> bool(tf.reduce_all(layer(x, training=False) == x))
  True
  >>> sorted(set(layer(x, training=True).numpy().ravel()) - {0.0, 2.0})
  []
"""

import keras
import tensorflow as tf

from modeling import ops
from modeling.tf_internals import in_xla_context  # Whether XLA compiles.

_MAX_ELEMENTS = 2**31 - 1  # The element index is an int32.


def _lowbias32(x):
  """A 32-bit integer hash with good avalanche (C. Wellons' lowbias32)."""
  x = tf.bitwise.bitwise_xor(x, tf.bitwise.right_shift(x, 16))
  x = x * tf.constant(0x7FEB352D, tf.uint32)
  x = tf.bitwise.bitwise_xor(x, tf.bitwise.right_shift(x, 15))
  x = x * tf.constant(0x846CA68B, tf.uint32)
  return tf.bitwise.bitwise_xor(x, tf.bitwise.right_shift(x, 16))


def hash_random_bits(shape, seed):
  """Uniform uint32 Tensor of `shape` from an int [2] `seed` (stateless).

  Element i (row-major) is lowbias32(lowbias32(i * 0x9E3779B9 ^ seed[0]) ^
  seed[1]); the same shape and seed give the same bits.
  """
  seed = tf.bitcast(tf.cast(seed, tf.int32), tf.uint32)
  index = tf.bitcast(tf.range(tf.reduce_prod(shape), dtype=tf.int32),
                     tf.uint32)
  bits = _lowbias32(tf.bitwise.bitwise_xor(
      index * tf.constant(0x9E3779B9, tf.uint32), seed[0]))
  bits = _lowbias32(tf.bitwise.bitwise_xor(bits, seed[1]))
  return tf.reshape(bits, shape)


def hash_dropout(x, rate, seed):
  """Dropout of float Tensor `x` with keep probability 1 - rate (to 2^-32).

  Args:
    x: float Tensor of any shape.
    rate: python float in [0, 1).
    seed: int Tensor of shape [2].

  Returns:
    Tensor like `x`: x / (1 - rate) where kept, 0 elsewhere.
  """
  threshold = tf.constant(min(int(round(rate * 2.0**32)), 2**32 - 1),
                          tf.uint32)
  keep = hash_random_bits(tf.shape(x), seed) >= threshold
  return tf.where(keep, x * tf.cast(1.0 / (1.0 - rate), x.dtype),
                  tf.zeros_like(x))


# hash_dropout as one XLA cluster, for callers outside XLA (one trace per
# rate, dtype and rank).
compiled_hash_dropout = tf.function(hash_dropout, jit_compile=True,
                                    reduce_retracing=True, autograph=False)


def uses_compiled_hash(dtype):
  """Whether dropout outside XLA takes `compiled_hash_dropout` for `dtype`.

  Below float32 (bfloat16, float16) only: float32 keeps Keras' dropout.

  >>> uses_compiled_hash(tf.bfloat16), uses_compiled_hash(tf.float32)
  (True, False)
  """
  return ops.below_float32(dtype)


@keras.saving.register_keras_serializable(package="bert_tf2")
class Dropout(keras.layers.Layer):
  """keras.layers.Dropout, with the hash mask under XLA and below float32."""

  def __init__(self, rate, seed=None, **kwargs):
    super().__init__(**kwargs)
    if not 0.0 <= rate < 1.0:
      raise ValueError("dropout rate must be in [0, 1), got %r" % (rate,))
    self.rate = float(rate)
    self.seed = seed
    self.seed_generator = keras.random.SeedGenerator(seed)
    self.built = True

  def call(self, inputs, training=False):
    if not training or not self.rate:
      return inputs
    size = inputs.shape.num_elements()
    if size is None or size <= _MAX_ELEMENTS:
      if in_xla_context():
        return hash_dropout(inputs, self.rate, self.seed_generator.next())
      if uses_compiled_hash(inputs.dtype):
        return compiled_hash_dropout(inputs, self.rate,
                                     self.seed_generator.next())
    return keras.random.dropout(inputs, self.rate, seed=self.seed_generator)

  def compute_output_shape(self, input_shape):
    return input_shape

  def get_config(self):
    config = super().get_config()
    config.update(rate=self.rate, seed=self.seed)
    return config
