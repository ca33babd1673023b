"""The embedding block: word + token type + position, LayerNorm, dropout.

Variables (relative to the model scope, e.g. "bert/"):
  embeddings/word_embeddings        [vocab_size, hidden_size]
  embeddings/token_type_embeddings  [type_vocab_size, hidden_size]
  embeddings/position_embeddings    [max_position_embeddings, hidden_size]
  embeddings/LayerNorm/{gamma,beta}
"""

import keras
import tensorflow as tf

from tokenization.errors import InputError
from modeling import dropout_layer as dropout_lib
from modeling.config import BertConfig
from modeling import layers
from modeling import ops


@layers.serializable
class Embeddings(keras.layers.Layer, layers.OriginalNamed):
  """Maps token ids to the encoder input, exactly as the original.

  The sum is (word + token_type) + position, normalised with LayerNorm
  (epsilon 1e-12) then dropped out with `hidden_dropout_prob` in training.
  Token type embeddings are a one-hot matmul as in the original (an id
  outside [0, type_vocab_size) contributes zeros, as there).

  Example:
    >>> from modeling.config import BertConfig
    >>> cfg = BertConfig(vocab_size=10, hidden_size=6, num_attention_heads=2,
    ...                  max_position_embeddings=8, type_vocab_size=2)
    >>> emb = Embeddings(cfg)
    >>> out, word = emb(tf.constant([[1, 2, 3]]), tf.constant([[0, 0, 1]]))
    >>> out.shape
    TensorShape([1, 3, 6])
  """

  def __init__(self, config, use_one_hot_embeddings=False, **kwargs):
    super().__init__(**kwargs)
    self.config = config
    self.use_one_hot_embeddings = use_one_hot_embeddings
    init = ops.create_initializer(config.initializer_range)
    width = config.hidden_size
    # Tables are read in float32 and cast after the lookup (cheaper than
    # casting a whole table under mixed precision).
    self.word_embeddings = self.add_weight(
        name="word_embeddings", shape=(config.vocab_size, width),
        initializer=init, autocast=False)
    self.token_type_embeddings = self.add_weight(
        name="token_type_embeddings", shape=(config.type_vocab_size, width),
        initializer=init, autocast=False)
    self.position_embeddings = self.add_weight(
        name="position_embeddings",
        shape=(config.max_position_embeddings, width),
        initializer=init, autocast=False)
    self.layer_norm = layers.LayerNorm(width, name="LayerNorm",
                                       dtype=self.dtype_policy)
    rate = config.hidden_dropout_prob
    self.dropout = dropout_lib.Dropout(rate, dtype=self.dtype_policy) if rate else None
    self.built = True

  def call(self, input_ids, token_type_ids, training=False):
    """Computes the embedding output.

    Args:
      input_ids: int Tensor [batch_size, seq_length].
      token_type_ids: int Tensor [batch_size, seq_length].
      training: bool, apply dropout.

    Returns:
      (embedding_output, word_embedding_output): float Tensors of shape
      [batch_size, seq_length, hidden_size] in the compute dtype; the first
      is the encoder input, the second the raw word-piece lookup.
    """
    seq_length = input_ids.shape[1]
    max_pos = self.config.max_position_embeddings
    if seq_length is not None and seq_length > max_pos:
      raise InputError(
          "sequence length %d is longer than max_position_embeddings=%d of "
          "the bert config (use a --max_seq_length <= %d)"
          % (seq_length, max_pos, max_pos))
    input_ids = tf.cast(input_ids, tf.int32)
    table = self.word_embeddings
    if self.use_one_hot_embeddings:
      one_hot = tf.one_hot(input_ids, depth=self.config.vocab_size,
                           dtype=tf.float32)
      word = tf.einsum("bsv,vh->bsh", one_hot, tf.convert_to_tensor(table))
    else:
      word = tf.gather(table, input_ids)
    types = tf.one_hot(tf.cast(token_type_ids, tf.int32),
                       depth=self.config.type_vocab_size, dtype=tf.float32)
    output = word + tf.einsum("bst,th->bsh", types,
                              tf.convert_to_tensor(self.token_type_embeddings))
    checks = []
    if seq_length is None:
      seq_length = tf.shape(input_ids)[1]
      check = tf.debugging.assert_less_equal(
          seq_length, max_pos,
          message="sequence length exceeds max_position_embeddings")
      checks = [check] if check is not None else []
    with tf.control_dependencies(checks):  # Fail before the shapes clash.
      positions = tf.slice(tf.convert_to_tensor(self.position_embeddings),
                           [0, 0], [seq_length, -1])
    output = output + positions[tf.newaxis]
    output = self.layer_norm(output)
    if self.dropout is not None:
      output = self.dropout(output, training=training)
    return output, tf.cast(word, self.compute_dtype)

  def original_variables(self):
    out = {
        "word_embeddings": self.word_embeddings,
        "token_type_embeddings": self.token_type_embeddings,
        "position_embeddings": self.position_embeddings,
    }
    out.update(layers.nest("LayerNorm", self.layer_norm.original_variables()))
    return out

  def get_config(self):
    config = super().get_config()
    config.update(config=self.config.to_dict(),
                  use_one_hot_embeddings=self.use_one_hot_embeddings)
    return config

  @classmethod
  def from_config(cls, config):
    config = dict(config)
    config["config"] = BertConfig.from_dict(config["config"])
    return cls(**config)
