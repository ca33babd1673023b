"""One post-LayerNorm transformer encoder layer, with the original names.

Variables (relative to ".../encoder/layer_N"):
  attention/self/...                    see `attention.SelfAttention`
  attention/output/dense/{kernel,bias}
  attention/output/LayerNorm/{gamma,beta}
  intermediate/dense/{kernel,bias}      [hidden, intermediate], activation
  output/dense/{kernel,bias}            [intermediate, hidden]
  output/LayerNorm/{gamma,beta}

  a = LN(dropout(dense(self_attention(x))) + x)
  y = LN(dropout(dense(act(dense(a)))) + a)
"""

import keras

from modeling import attention
from modeling import dropout_layer as dropout_lib
from modeling import layers


@layers.serializable
class TransformerLayer(keras.layers.Layer, layers.OriginalNamed):
  """Self-attention block followed by a feed-forward block, post-LN.

  Example:
    >>> import tensorflow as tf
    >>> layer = TransformerLayer(hidden_size=6, num_attention_heads=2,
    ...                          intermediate_size=10)
    >>> y, probs = layer(tf.ones([1, 3, 6]), None)
    >>> y.shape
    TensorShape([1, 3, 6])
  """

  def __init__(self, hidden_size, num_attention_heads, intermediate_size,
               hidden_act="gelu", hidden_dropout_prob=0.0,
               attention_probs_dropout_prob=0.0, initializer_range=0.02,
               fused_qkv=False,
               attention_layout=attention.DEFAULT_ATTENTION_LAYOUT, **kwargs):
    super().__init__(**kwargs)
    self._args = dict(
        hidden_size=hidden_size, num_attention_heads=num_attention_heads,
        intermediate_size=intermediate_size, hidden_act=hidden_act,
        hidden_dropout_prob=hidden_dropout_prob,
        attention_probs_dropout_prob=attention_probs_dropout_prob,
        initializer_range=initializer_range, fused_qkv=fused_qkv,
        attention_layout=attention_layout)
    self.attention_self = attention.SelfAttention(
        hidden_size, num_attention_heads,
        attention_probs_dropout_prob=attention_probs_dropout_prob,
        initializer_range=initializer_range, fused_qkv=fused_qkv,
        attention_layout=attention_layout, name="self", dtype=self.dtype_policy)
    self.attention_output_dense = layers.Dense(
        hidden_size, input_width=hidden_size,
        initializer_range=initializer_range, name="attention_output_dense",
        dtype=self.dtype_policy)
    self.attention_output_layer_norm = layers.LayerNorm(
        hidden_size, name="attention_output_LayerNorm", dtype=self.dtype_policy)
    self.intermediate_dense = layers.Dense(
        intermediate_size, input_width=hidden_size, activation=hidden_act,
        initializer_range=initializer_range, name="intermediate_dense",
        dtype=self.dtype_policy)
    self.output_dense = layers.Dense(
        hidden_size, input_width=intermediate_size,
        initializer_range=initializer_range, name="output_dense", dtype=self.dtype_policy)
    self.output_layer_norm = layers.LayerNorm(hidden_size,
                                              name="output_LayerNorm",
                                              dtype=self.dtype_policy)
    rate = hidden_dropout_prob
    self.attention_dropout = dropout_lib.Dropout(rate, dtype=self.dtype_policy) if rate else None
    self.output_dropout = dropout_lib.Dropout(rate, dtype=self.dtype_policy) if rate else None
    self.built = True

  def call(self, x, mask_adder, training=False, first_only=False):
    """Runs the layer.

    Args:
      x: float Tensor [batch_size, seq_length, hidden_size].
      mask_adder: see `attention.SelfAttention.call`.
      training: bool, apply dropout.
      first_only: compute the output at the first position ([CLS]) alone:
        it attends to every position of `x` as usual, and the other
        positions' outputs, which it does not depend on, are skipped.

    Returns:
      (output, attention_probs): output like `x` (with first_only, float
      [batch_size, 1, hidden_size]); attention_probs float32
      [batch_size, num_attention_heads, from_length, seq_length].
    """
    residual = x[:, :1] if first_only else x
    context, probs = self.attention_self(
        x, mask_adder, training=training,
        from_tensor=residual if first_only else None)
    a = self.attention_output_dense(context)
    if self.attention_dropout is not None:
      a = self.attention_dropout(a, training=training)
    a = self.attention_output_layer_norm(a + residual)
    h = self.intermediate_dense(a, training=training)
    y = self.output_dense(h)
    if self.output_dropout is not None:
      y = self.output_dropout(y, training=training)
    y = self.output_layer_norm(y + a)
    return y, probs

  def original_variables(self):
    out = {}
    out.update(layers.nest("attention/self",
                           self.attention_self.original_variables()))
    out.update(layers.nest("attention/output/dense",
                           self.attention_output_dense.original_variables()))
    out.update(layers.nest(
        "attention/output/LayerNorm",
        self.attention_output_layer_norm.original_variables()))
    out.update(layers.nest("intermediate/dense",
                           self.intermediate_dense.original_variables()))
    out.update(layers.nest("output/dense",
                           self.output_dense.original_variables()))
    out.update(layers.nest("output/LayerNorm",
                           self.output_layer_norm.original_variables()))
    return out

  def get_config(self):
    config = super().get_config()
    config.update(self._args)
    return config
