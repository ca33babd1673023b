"""Multi-head self-attention with the original's variables and maths.

Variables (relative to ".../attention/self"):
  query/{kernel,bias}, key/{kernel,bias}, value/{kernel,bias}
with kernels [hidden_size, hidden_size] as in released checkpoints.

scores = (Q K^T) / sqrt(size_per_head) + (1 - mask) * -10000, softmax over
keys (float32 under mixed precision), dropout on the probabilities, then the
probability-weighted sum of V.
"""

import math

import keras
import tensorflow as tf

from modeling import dropout_layer as dropout_lib
from modeling import layers
from modeling import ops

# How the scores and the context are computed (same maths, equal to float32
# round-off):
#   "matmul"  transposes to [batch, heads, seq, size] + batched matmuls (the
#             original modeling.py's layout; the default). Measured faster
#             wherever it was timed (docs/performance.md, MiniLM seq 128 on
#             an AVX512-BF16 EPYC): bfloat16 inference +14%, bfloat16
#             training steps +4-7%, float32 inference +4-7% under XLA and
#             +17% without, float32 training steps under XLA level.
#             tf2onnx's ONNX graph of this layout also runs ~25% faster in
#             ONNX Runtime than that of the einsums (dynamic reshapes, a
#             softmax over a non-last axis).
#   "einsum"  two tf.einsum over [batch, seq, heads, size] (the default of
#             earlier releases; kept for models saved with it).
ATTENTION_LAYOUTS = ("matmul", "einsum")
DEFAULT_ATTENTION_LAYOUT = "matmul"


def check_attention_layout(attention_layout):
  """Returns `attention_layout` if it is one of ATTENTION_LAYOUTS."""
  if attention_layout not in ATTENTION_LAYOUTS:
    raise ValueError("attention_layout=%r: expected one of %s"
                     % (attention_layout, ", ".join(ATTENTION_LAYOUTS)))
  return attention_layout


@layers.serializable
class SelfAttention(keras.layers.Layer, layers.OriginalNamed):
  """Self-attention over a [batch, seq, hidden] tensor.

  Example:
    >>> att = SelfAttention(hidden_size=6, num_attention_heads=2)
    >>> ctx, probs = att(tf.ones([1, 4, 6]), tf.zeros([1, 1, 1, 4]))
    >>> ctx.shape, probs.shape
    (TensorShape([1, 4, 6]), TensorShape([1, 2, 4, 4]))
    >>> SelfAttention(6, 2, attention_layout="matmul").get_config()[
    ...     "attention_layout"]
    'matmul'
  """

  def __init__(self, hidden_size, num_attention_heads,
               attention_probs_dropout_prob=0.0, initializer_range=0.02,
               fused_qkv=False, attention_layout=DEFAULT_ATTENTION_LAYOUT,
               **kwargs):
    super().__init__(**kwargs)
    if hidden_size % num_attention_heads:
      raise ValueError("hidden_size (%d) is not a multiple of "
                       "num_attention_heads (%d)"
                       % (hidden_size, num_attention_heads))
    self.hidden_size = hidden_size
    self.num_attention_heads = num_attention_heads
    self.size_per_head = hidden_size // num_attention_heads
    self.attention_probs_dropout_prob = attention_probs_dropout_prob
    self.initializer_range = initializer_range
    # True: the query/key/value kernels (kept as separate variables under
    # their original names) are concatenated at call time into one [H, 3H]
    # matmul. Mathematically identical; which is faster depends on the
    # hardware (bench/ measures it).
    self.fused_qkv = bool(fused_qkv)
    # "matmul" or "einsum": see ATTENTION_LAYOUTS.
    self.attention_layout = check_attention_layout(attention_layout)
    def dense(name):
      return layers.Dense(hidden_size, input_width=hidden_size,
                          initializer_range=initializer_range, name=name,
                          dtype=self.dtype_policy)
    self.query = dense("query")
    self.key = dense("key")
    self.value = dense("value")
    rate = attention_probs_dropout_prob
    self.dropout = dropout_lib.Dropout(rate, dtype=self.dtype_policy) if rate else None
    self.built = True

  def _project(self, x):
    if not self.fused_qkv or self.query.quantization_mode:  # int8: Keras'.
      return self.query(x), self.key(x), self.value(x)
    dtype = self.compute_dtype
    kernel = tf.concat([tf.cast(d.kernel, dtype)
                        for d in (self.query, self.key, self.value)], axis=1)
    bias = tf.concat([tf.cast(d.bias, dtype)
                      for d in (self.query, self.key, self.value)], axis=0)
    # A matrix product + BiasAdd (see layers.Dense); split, then back to
    # [batch, seq, hidden] in call().
    flat = tf.reshape(tf.cast(x, dtype), [-1, self.hidden_size])
    qkv = tf.nn.bias_add(tf.matmul(flat, kernel), bias)
    return tf.split(qkv, 3, axis=-1)

  def call(self, x, mask_adder, training=False, from_tensor=None):
    """Attends every position of `x` to every unmasked position.

    Args:
      x: float Tensor [batch_size, seq_length, hidden_size].
      mask_adder: float Tensor broadcastable to [batch_size, heads, seq, seq]
        (see `ops.attention_mask_adder`), or None.
      training: bool, apply dropout to the probabilities.
      from_tensor: optional float Tensor [batch_size, from_length,
        hidden_size] whose positions attend to `x` instead of `x`'s own
        (the original's `attention_layer(from_tensor, to_tensor)`): the
        queries come from it, the keys and values from `x`. BertModel
        passes the [CLS] position alone in its last layer when only the
        pooled output is wanted.

    Returns:
      (context, probs): context float Tensor [batch_size, from_length,
      hidden_size]; probs float32 Tensor [batch_size, num_attention_heads,
      from_length, seq_length] (before dropout). from_length is seq_length
      without `from_tensor`.
    """
    batch_size, seq_length = ops.get_shape_list(x, expected_rank=3)[:2]
    heads, size = self.num_attention_heads, self.size_per_head
    if from_tensor is None:
      from_length = seq_length
      q, k, v = self._project(x)
    else:
      from_length = ops.get_shape_list(from_tensor, expected_rank=3)[1]
      q, k, v = self.query(from_tensor), self.key(x), self.value(x)
    split = lambda t, n: tf.reshape(t, [batch_size, n, heads, size])
    q = split(q, from_length)
    k, v = split(k, seq_length), split(v, seq_length)
    scale = 1.0 / math.sqrt(float(size))
    # bfloat16 inference: the scores scaled, masked and normalised in
    # bfloat16. On CPU in the "matmul" layout oneDNN fuses the scale and
    # the mask into the scores' matmul (`_MklFusedBatchMatMulV2`), and its
    # softmax computes in float32 inside; the probabilities are bfloat16
    # for the context's matmul either way. No float32 pass over the
    # [batch, heads, seq, seq] scores: MiniLM, 16 x 128 on a 2-core Xeon
    # with AMX, 228 -> 269 sequences/s, every quality gate passing
    # (docs/performance.md). Training and float32: float32 scores from the
    # matmul on, as Keras' mixed precision.
    low = self.compute_dtype == "bfloat16" and not training
    matmul = self.attention_layout == "matmul"
    if matmul:  # [batch, heads, seq, size]
      q, k, v = (tf.transpose(t, [0, 2, 1, 3]) for t in (q, k, v))
      scores = tf.matmul(q, k, transpose_b=True)
    else:
      scores = tf.einsum("btnh,bfnh->bnft", k, q)
    if low:
      scores = scores * tf.cast(scale, scores.dtype)
      if mask_adder is not None:
        scores += tf.cast(mask_adder, scores.dtype)
      dropped = tf.nn.softmax(scores)
      probs = tf.cast(dropped, tf.float32)  # Pruned where unused.
    else:
      scores = tf.cast(scores, tf.float32) * scale
      if mask_adder is not None:
        scores += tf.cast(mask_adder, tf.float32)
      probs = tf.nn.softmax(scores)
      dropped = tf.cast(probs, self.compute_dtype)
      if self.dropout is not None:
        dropped = self.dropout(dropped, training=training)
    if matmul:
      context = tf.transpose(tf.matmul(dropped, v), [0, 2, 1, 3])
    else:
      context = tf.einsum("bnft,btnh->bfnh", dropped, v)
    context = tf.reshape(context, [batch_size, from_length, self.hidden_size])
    return context, probs

  def original_variables(self):
    out = {}
    for name, dense in (("query", self.query), ("key", self.key),
                        ("value", self.value)):
      out.update(layers.nest(name, dense.original_variables()))
    return out

  def get_config(self):
    config = super().get_config()
    config.update(hidden_size=self.hidden_size,
                  num_attention_heads=self.num_attention_heads,
                  attention_probs_dropout_prob=self.attention_probs_dropout_prob,
                  initializer_range=self.initializer_range,
                  fused_qkv=self.fused_qkv,
                  attention_layout=self.attention_layout)
    return config
