"""Stateless tensor helpers with the original modeling.py names.

These hold no variables, so they work eagerly, in `tf.function` and under
XLA. (The original's variable-creating functions, e.g. `embedding_lookup`
or `transformer_model`, are Keras layers in this package instead.)
"""

import tensorflow as tf


def get_shape_list(tensor, expected_rank=None, name=None):
  """Returns the shape as a list: static dims as ints, dynamic as scalars.

  Args:
    tensor: a Tensor.
    expected_rank: optional int or list of ints; ValueError if the rank
      differs.
    name: optional name for error messages.

  Returns:
    list, e.g. [batch_size_tensor, 128, 768].

  Example:
    >>> get_shape_list(tf.zeros([2, 3]))
    [2, 3]
  """
  if expected_rank is not None:
    assert_rank(tensor, expected_rank, name)
  shape = tensor.shape.as_list()
  dynamic = [i for i, dim in enumerate(shape) if dim is None]
  if not dynamic:
    return shape
  dyn_shape = tf.shape(tensor)
  for index in dynamic:
    shape[index] = dyn_shape[index]
  return shape


def assert_rank(tensor, expected_rank, name=None):
  """Raises ValueError unless `tensor`'s static rank is in `expected_rank`."""
  if isinstance(expected_rank, int):
    expected_rank = [expected_rank]
  ndims = tensor.shape.ndims
  if ndims not in expected_rank:
    raise ValueError("tensor %s has rank %s, expected one of %s (shape %s)"
                     % (name or "", ndims, list(expected_rank),
                        tensor.shape))


def reshape_to_matrix(input_tensor):
  """Reshapes a rank >= 2 Tensor to [-1, last_dim]."""
  ndims = input_tensor.shape.ndims
  if ndims < 2:
    raise ValueError("input must have rank >= 2, got shape %s"
                     % input_tensor.shape)
  if ndims == 2:
    return input_tensor
  return tf.reshape(input_tensor, [-1, input_tensor.shape[-1]])


def reshape_from_matrix(output_tensor, orig_shape_list):
  """Inverse of `reshape_to_matrix` given the original shape list."""
  if len(orig_shape_list) == 2:
    return output_tensor
  output_shape = get_shape_list(output_tensor)
  return tf.reshape(output_tensor, orig_shape_list[0:-1] + [output_shape[-1]])


def below_float32(dtype):
  """Whether `dtype` is a float narrower than float32 (bfloat16, float16).

  The one test for "reduced precision" of the layers and the training loop:
  below float32 they take the fused or compiled forms measured faster there
  (docs/performance.md), while float32 keeps the original's op sequence
  (but GELU in inference, `layers.Dense`).

  >>> below_float32(tf.bfloat16), below_float32("float16")
  (True, True)
  >>> below_float32(tf.float32), below_float32(tf.int8)
  (False, False)
  """
  dtype = tf.as_dtype(dtype)
  return dtype.is_floating and dtype.size < 4


def create_initializer(initializer_range=0.02):
  """Truncated normal initializer (cut at 2 stddev), as the original."""
  import keras  # pylint: disable=g-import-not-at-top
  return keras.initializers.TruncatedNormal(stddev=initializer_range)


def dropout(input_tensor, dropout_prob):
  """Dropout with drop probability `dropout_prob` (None or 0: identity)."""
  if dropout_prob is None or dropout_prob == 0.0:
    return input_tensor
  return tf.nn.dropout(input_tensor, rate=dropout_prob)


def layer_norm(input_tensor, gamma=None, beta=None, epsilon=1e-12):
  """Layer normalisation over the last axis, in float32, as the original.

  Unlike the original, this function holds no variables: pass `gamma` and
  `beta` (or get the unscaled normalisation). `modeling.LayerNorm` is the
  layer with the original `LayerNorm/gamma`, `LayerNorm/beta` variables.

  Args:
    input_tensor: float Tensor [..., width].
    gamma: optional float Tensor [width] (scale).
    beta: optional float Tensor [width] (offset).
    epsilon: variance epsilon (the original's contrib layer_norm: 1e-12).

  Returns:
    Tensor with the dtype of `input_tensor`.
  """
  dtype = input_tensor.dtype
  x = tf.cast(input_tensor, tf.float32)
  mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
  if gamma is not None:
    gamma = tf.cast(gamma, tf.float32)
  if beta is not None:
    beta = tf.cast(beta, tf.float32)
  out = tf.nn.batch_normalization(x, mean, variance, offset=beta, scale=gamma,
                                  variance_epsilon=epsilon)
  return tf.cast(out, dtype)


# Layer normalisation ignores a scale of its input but through epsilon:
# the input times k normalises as the input at epsilon / k**2. 2**15 is
# exact in every float dtype, and in range in bfloat16's (not float16's).
FUSED_LAYER_NORM_SCALE = 2.0 ** 15


def fusable_layer_norm(input_tensor, gamma, beta, epsilon=1e-12):
  """`layer_norm` in the op pattern TensorFlow's graph optimizer fuses on
  CPU into oneDNN's layer normalisation (`_MklLayerNorm`: a rank-3 float32
  input not made by a Mul, `tf.nn.moments` and `tf.nn.batch_normalization`
  over its last axis, `gamma` and `beta` graph constants), one kernel in
  place of ten ops. That kernel runs at epsilon 1e-3 whatever the graph
  says (TensorFlow 2.21), so the input is scaled by k =
  `FUSED_LAYER_NORM_SCALE` first (then cast, which keeps the Mul out of
  the pattern): the kernel's 1e-3 acts as 1e-3 / k**2 (9.3e-13) on the
  input, and the graph's own epsilon is epsilon * k**2, so the ops unfused
  (no oneDNN) give `layer_norm` too.

  >>> x = tf.constant([[[1.0, 2.0, 3.0], [4.0, 0.0, 2.0]]], tf.bfloat16)
  >>> g, b = tf.constant([1.0, 2.0, 0.5]), tf.constant([0.0, 1.0, -1.0])
  >>> y = fusable_layer_norm(x, g, b)
  >>> float(tf.reduce_max(tf.abs(y - layer_norm(tf.cast(x, tf.float32), g,
  ...                                           b)))) < 1e-5
  True

  Args:
    input_tensor: bfloat16 Tensor [batch_size, seq_length, width].
    gamma: float32 Tensor [width] (scale), a graph constant to be fused.
    beta: float32 Tensor [width] (offset), a graph constant to be fused.
    epsilon: variance epsilon.

  Returns:
    float32 Tensor [batch_size, seq_length, width].
  """
  k = FUSED_LAYER_NORM_SCALE
  x = tf.cast(input_tensor * tf.constant(k, input_tensor.dtype), tf.float32)
  mean, variance = tf.nn.moments(x, axes=[2], keepdims=True)
  return tf.nn.batch_normalization(x, mean, variance, offset=beta,
                                   scale=gamma,
                                   variance_epsilon=epsilon * k * k)


def centered_layer_norm(input_tensor, gamma, beta, epsilon=1e-12):
  """`layer_norm`'s maths in float32 with fewer passes over the input:
  ((x - mean) * rsqrt(variance + epsilon)) * gamma + beta, the variance
  of the centred x. The layers use it below float32 (its input and output
  bfloat16: 1.24 -> 1.10 ms on a [32, 27, 384] batch on a 2-core Xeon);
  float32 keeps the original's `layer_norm`. Within float32 round-off of
  it (closer to exact where a row's mean is large against its spread):

  >>> x = tf.constant([[1.0, 2.0, 3.0], [4.0, 0.0, 2.0]])
  >>> g, b = tf.constant([1.0, 2.0, 0.5]), tf.constant([0.0, 1.0, -1.0])
  >>> y = centered_layer_norm(x, g, b)
  >>> y.numpy().astype("float64").round(4).tolist()
  [[-1.2247, 1.0, -0.3876], [1.2247, -1.4495, -1.0]]
  >>> float(tf.reduce_max(tf.abs(centered_layer_norm(x, g, b) -
  ...                            layer_norm(x, g, b)))) < 1e-6
  True

  Args:
    input_tensor: float Tensor [..., width].
    gamma: float Tensor [width] (scale).
    beta: float Tensor [width] (offset).
    epsilon: variance epsilon.

  Returns:
    Tensor with the dtype of `input_tensor`.
  """
  x = tf.cast(input_tensor, tf.float32)
  centred = x - tf.reduce_mean(x, axis=-1, keepdims=True)
  variance = tf.reduce_mean(tf.square(centred), axis=-1, keepdims=True)
  out = (centred * tf.math.rsqrt(variance + epsilon) *
         tf.cast(gamma, tf.float32) + tf.cast(beta, tf.float32))
  return tf.cast(out, input_tensor.dtype)


def create_attention_mask_from_input_mask(from_tensor, to_mask):
  """3D attention mask [batch, from_seq, to_seq] from a 2D padding mask.

  Args:
    from_tensor: Tensor [batch_size, from_seq_length, ...].
    to_mask: int Tensor [batch_size, to_seq_length], 1 = real token.

  Returns:
    float32 Tensor [batch_size, from_seq_length, to_seq_length].
  """
  from_shape = get_shape_list(from_tensor, expected_rank=[2, 3])
  to_mask = tf.cast(to_mask, tf.float32)[:, tf.newaxis, :]
  ones = tf.ones([from_shape[0], from_shape[1], 1], dtype=tf.float32)
  return ones * to_mask


def attention_mask_adder(input_mask, dtype=tf.float32):
  """Additive key mask: 0 for real tokens, -10000 for padding.

  Args:
    input_mask: int or float Tensor [batch_size, seq_length], 1 = attend.
    dtype: dtype of the result.

  Returns:
    Tensor [batch_size, 1, 1, seq_length] to add to attention scores of shape
    [batch, heads, from_seq, to_seq].
  """
  mask = tf.cast(input_mask, tf.float32)[:, tf.newaxis, tf.newaxis, :]
  return tf.cast((1.0 - mask) * -10000.0, dtype)


def gather_indexes(sequence_tensor, positions):
  """Gathers vectors at `positions` of each sequence.

  Args:
    sequence_tensor: float Tensor [batch_size, seq_length, width].
    positions: int Tensor [batch_size, num_positions].

  Returns:
    float Tensor [batch_size * num_positions, width], example-major.

  Example:
    >>> seq = tf.reshape(tf.range(12, dtype=tf.float32), [2, 3, 2])
    >>> gather_indexes(seq, tf.constant([[2], [0]])).numpy().tolist()
    [[4.0, 5.0], [6.0, 7.0]]
  """
  shape = get_shape_list(sequence_tensor, expected_rank=3)
  batch_size, seq_length, width = shape
  positions = tf.cast(positions, tf.int32)
  flat_offsets = tf.reshape(tf.range(0, batch_size, dtype=tf.int32)
                            * seq_length, [-1, 1])
  flat_positions = tf.reshape(positions + flat_offsets, [-1])
  flat_sequence = tf.reshape(sequence_tensor, [batch_size * seq_length, width])
  return tf.gather(flat_sequence, flat_positions)
