"""Output heads with the original variable names.

  MaskedLMHead      cls/predictions/transform/dense/{kernel,bias},
                    cls/predictions/transform/LayerNorm/{gamma,beta},
                    cls/predictions/output_bias; output weights tied to
                    bert/embeddings/word_embeddings.
  NextSentenceHead  cls/seq_relationship/output_weights [2, hidden],
                    cls/seq_relationship/output_bias [2].
  ClassificationHead output_weights [num_labels, hidden], output_bias.
  SquadHead         cls/squad/output_weights [2, hidden], cls/squad/output_bias.

Every head has one constructor shape: `Head(config, <its own sizes>,
scope=<original prefix>, **layer kwargs)`, with `config` the model's
`BertConfig` (hidden_size, initializer_range, ...; a dict is accepted, as
`from_config` passes), and creates its variables in the constructor.
`get_config()` / `from_config()` round-trip. Each head's `original_scope`
is its prefix above; `original_variables()` gives names relative to it.
Heads return logits; `modeling.losses` turns them into the original losses.
"""

import keras
import tensorflow as tf

from modeling import dropout_layer as dropout_lib
from modeling.config import BertConfig
from modeling import layers
from modeling import ops


class _Head(keras.layers.Layer, layers.OriginalNamed):
  """What every head shares: the `BertConfig`, the scope, the config I/O."""

  def __init__(self, config, scope, **kwargs):
    super().__init__(**kwargs)
    if isinstance(config, dict):
      config = BertConfig.from_dict(config)
    self.config = config
    self.original_scope = scope

  def get_config(self):
    config = super().get_config()
    config.update(config=self.config.to_dict(), scope=self.original_scope)
    return config


class _OutputLayer(_Head):
  """A linear layer: `output_weights` [num_outputs, hidden], `output_bias`."""

  def __init__(self, config, num_outputs, scope, **kwargs):
    super().__init__(config, scope, **kwargs)
    self.num_outputs = int(num_outputs)
    self.hidden_size = self.config.hidden_size
    self.output_weights = self.add_weight(
        name="output_weights", shape=(self.num_outputs, self.hidden_size),
        initializer=ops.create_initializer(self.config.initializer_range))
    self.output_bias = self.add_weight(
        name="output_bias", shape=(self.num_outputs,), initializer="zeros")
    self.built = True

  def _logits(self, x):
    x = tf.cast(x, self.compute_dtype)
    w = tf.cast(self.output_weights, self.compute_dtype)
    logits = tf.matmul(tf.reshape(x, [-1, self.hidden_size]), w,
                       transpose_b=True)
    logits = logits + tf.cast(self.output_bias, self.compute_dtype)
    return tf.cast(logits, tf.float32)

  def original_variables(self):
    return {"output_weights": self.output_weights,
            "output_bias": self.output_bias}


@layers.serializable
class NextSentenceHead(_OutputLayer):
  """Next-sentence prediction: pooled_output -> logits [batch_size, 2].

  Example:
    >>> from modeling.config import BertConfig
    >>> head = NextSentenceHead(BertConfig(vocab_size=11, hidden_size=4))
    >>> head(tf.ones([3, 4])).shape
    TensorShape([3, 2])
  """

  def __init__(self, config, scope="cls/seq_relationship", **kwargs):
    kwargs.setdefault("name", "seq_relationship")
    super().__init__(config, 2, scope, **kwargs)

  def call(self, pooled_output):
    """float [batch_size, hidden] -> float32 logits [batch_size, 2]."""
    return self._logits(pooled_output)


@layers.serializable
class ClassificationHead(_OutputLayer):
  """Classifier on the pooled output, as run_classifier.py's create_model.

  Dropout (rate 0.1, as the original hard-codes) is applied in training.
  Variables `output_weights` [num_labels, hidden] (truncated normal 0.02)
  and `output_bias`, at the top level of the checkpoint. Applied to a
  sequence [batch, seq, hidden] (token tagging, as run_ner.py) it gives
  logits [batch * seq, num_labels].

  Example:
    >>> from modeling.config import BertConfig
    >>> head = ClassificationHead(BertConfig(vocab_size=11, hidden_size=4), 3)
    >>> head(tf.ones([2, 4])).shape
    TensorShape([2, 3])
  """

  def __init__(self, config, num_labels, dropout_prob=0.1, scope="",
               **kwargs):
    kwargs.setdefault("name", "classifier")
    super().__init__(config, num_labels, scope, **kwargs)
    self.num_labels = int(num_labels)
    self.dropout_prob = dropout_prob
    self.dropout = (dropout_lib.Dropout(dropout_prob, dtype=self.dtype_policy)
                    if dropout_prob else None)

  def call(self, pooled_output, training=False):
    """float [batch_size, hidden] -> float32 logits [batch_size, labels]."""
    if self.dropout is not None:
      pooled_output = self.dropout(pooled_output, training=training)
    return self._logits(pooled_output)

  def get_config(self):
    config = super().get_config()
    config.update(num_labels=self.num_labels, dropout_prob=self.dropout_prob)
    return config


@layers.serializable
class SquadHead(_OutputLayer):
  """SQuAD span head: sequence_output -> (start_logits, end_logits).

  Example:
    >>> from modeling.config import BertConfig
    >>> head = SquadHead(BertConfig(vocab_size=11, hidden_size=4))
    >>> start, end = head(tf.ones([2, 5, 4]))
    >>> start.shape
    TensorShape([2, 5])
  """

  def __init__(self, config, scope="cls/squad", **kwargs):
    kwargs.setdefault("name", "squad")
    super().__init__(config, 2, scope, **kwargs)

  def call(self, sequence_output):
    """float [batch, seq, hidden] -> two float32 Tensors [batch, seq]."""
    batch_size, seq_length = ops.get_shape_list(sequence_output,
                                                expected_rank=3)[:2]
    logits = self._logits(sequence_output)
    logits = tf.reshape(logits, [batch_size, seq_length, 2])
    return logits[:, :, 0], logits[:, :, 1]


@layers.serializable
class MaskedLMHead(_Head):
  """Masked-LM head: transform, then logits tied to the word embeddings.

  `call(sequence_output, masked_lm_positions, embedding_table)` gathers the
  vectors at the masked positions (as the original's `gather_indexes`),
  applies dense(hidden, hidden_act) + LayerNorm, multiplies by the
  transposed embedding table and adds `output_bias`.

  Example:
    >>> from modeling.config import BertConfig
    >>> cfg = BertConfig(vocab_size=11, hidden_size=4, num_attention_heads=2)
    >>> head = MaskedLMHead(cfg)
    >>> table = tf.ones([11, 4])
    >>> head(tf.ones([2, 5, 4]), tf.constant([[1, 2], [0, 4]]), table).shape
    TensorShape([2, 2, 11])
  """

  def __init__(self, config, scope="cls/predictions", **kwargs):
    kwargs.setdefault("name", "predictions")
    super().__init__(config, scope, **kwargs)
    config = self.config
    self.transform_dense = layers.Dense(
        config.hidden_size, input_width=config.hidden_size,
        activation=config.hidden_act,
        initializer_range=config.initializer_range, name="transform_dense",
        dtype=self.dtype_policy)
    self.transform_layer_norm = layers.LayerNorm(
        config.hidden_size, name="transform_LayerNorm", dtype=self.dtype_policy)
    self.output_bias = self.add_weight(
        name="output_bias", shape=(config.vocab_size,), initializer="zeros")
    self.built = True

  def call(self, sequence_output, masked_lm_positions, embedding_table):
    """Computes MLM logits.

    Args:
      sequence_output: float Tensor [batch_size, seq_length, hidden_size].
      masked_lm_positions: int Tensor [batch_size, num_predictions], or None
        for every position.
      embedding_table: the word embedding variable or Tensor
        [vocab_size, hidden_size] (`bert_model.get_embedding_table()`).

    Returns:
      float32 logits [batch_size, num_predictions (or seq_length),
      vocab_size]. `tf.nn.log_softmax` of them are the original's log_probs.
    """
    batch_size, seq_length, width = ops.get_shape_list(sequence_output,
                                                       expected_rank=3)
    if masked_lm_positions is None:
      x = tf.reshape(sequence_output, [-1, width])
      num = seq_length
    else:
      x = ops.gather_indexes(sequence_output, masked_lm_positions)
      num = ops.get_shape_list(masked_lm_positions, expected_rank=2)[1]
    x = self.transform_layer_norm(self.transform_dense(x))
    table = tf.cast(embedding_table, self.compute_dtype)
    logits = tf.matmul(tf.cast(x, self.compute_dtype), table,
                       transpose_b=True)
    logits = logits + tf.cast(self.output_bias, self.compute_dtype)
    logits = tf.cast(logits, tf.float32)
    return tf.reshape(logits, [batch_size, num, self.config.vocab_size])

  def original_variables(self):
    out = layers.nest("transform/dense",
                      self.transform_dense.original_variables())
    out.update(layers.nest("transform/LayerNorm",
                           self.transform_layer_norm.original_variables()))
    out["output_bias"] = self.output_bias
    return out
