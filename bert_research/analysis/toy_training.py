"""A tiny BertModel with token-level heads, trained on synthetic batches.

The controlled experiments of the analysis (why position tables become
relative, positions_why_synthetic; the masking rate, questions masking)
train a small `modeling.BertModel` (learned absolute position table, no
dropout) with one linear head per target on the last layer, by Adam on
batches made in numpy. One seed fixes the initial weights: two runs with the
same seed and sizes start from the same model.

Example (two steps on constant targets):
  >>> net = ToyNet(tiny_config(vocab_size=8, hidden_size=16, layers=1,
  ...                          heads=2, seq_length=6), num_heads=1, seed=0)
  >>> ids = np.ones([2, 6], np.int32)
  >>> batch = {"input_ids": ids, "input_mask": ids,
  ...          "targets": ids[None], "weights": np.ones([1, 2, 6], np.float32)}
  >>> loss, accuracy = net.train_step(batch)
  >>> net.position_table().shape
  (6, 16)
"""

import numpy as np


def tiny_config(vocab_size, hidden_size, layers, heads, seq_length):
  """A BertConfig: feed-forward 4 x hidden, no dropout, one segment.

  Args:
    vocab_size, hidden_size, layers, heads: ints.
    seq_length: int, max_position_embeddings (every position analysed).
  """
  import modeling  # pylint: disable=g-import-not-at-top
  return modeling.BertConfig(
      vocab_size=vocab_size, hidden_size=hidden_size,
      num_hidden_layers=layers, num_attention_heads=heads,
      intermediate_size=4 * hidden_size, hidden_dropout_prob=0.0,
      attention_probs_dropout_prob=0.0,
      max_position_embeddings=seq_length, type_vocab_size=1)


def masked_accuracy(logits, targets, weights):
  """Share of weighted positions whose argmax is the target.

  >>> masked_accuracy(np.array([[[0., 1.], [1., 0.]]]), np.array([[1, 1]]),
  ...                 np.array([[1., 0.]]))
  1.0
  """
  right = np.argmax(logits, axis=-1) == np.asarray(targets)
  w = np.asarray(weights, np.float64)
  return float(np.sum(right * w) / max(np.sum(w), 1e-9))


class ToyNet(object):
  """BertModel + `num_heads` Dense(vocab) heads on the sequence output."""

  def __init__(self, config, num_heads, seed, learning_rate=1e-3):
    """Builds the model with weights fixed by `seed` (keras' global seed)."""
    import keras  # pylint: disable=g-import-not-at-top
    import modeling  # pylint: disable=g-import-not-at-top
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    keras.utils.set_random_seed(seed)
    self.config = config
    self.model = modeling.BertModel(config)
    self.model({"input_ids": np.zeros([1, config.max_position_embeddings],
                                      np.int32)})
    self.heads = [keras.layers.Dense(config.vocab_size)
                  for _ in range(num_heads)]
    for h in self.heads:
      h.build((None, config.hidden_size))
    # The pooler ([CLS] -> tanh) feeds no head: it gets no gradient.
    self.variables = [v for v in self.model.trainable_variables
                      if "pooler" not in v.path] + [
        v for h in self.heads for v in h.trainable_variables]
    self.optimizer = keras.optimizers.Adam(learning_rate)
    self._step = tf.function(self._train, autograph=False)

  def logits(self, ids, mask, training=False):
    """float [num_heads, B, S, vocab] for int ids, mask [B, S]."""
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    x = self.model({"input_ids": ids, "input_mask": mask},
                   training=training)["sequence_output"]
    return tf.stack([h(x) for h in self.heads])

  def sequence_output(self, ids, mask):
    """float numpy [B, S, hidden]: the last layer."""
    return np.asarray(self.model({"input_ids": ids, "input_mask": mask})[
        "sequence_output"])

  def _train(self, ids, mask, targets, weights):
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    with tf.GradientTape() as tape:
      logits = self.logits(ids, mask, training=True)
      nll = tf.nn.sparse_softmax_cross_entropy_with_logits(targets, logits)
      per_head = (tf.reduce_sum(nll * weights, axis=[1, 2])
                  / tf.maximum(tf.reduce_sum(weights, axis=[1, 2]), 1e-9))
      loss = tf.reduce_sum(per_head)
    grads = tape.gradient(loss, self.variables)
    self.optimizer.apply_gradients(zip(grads, self.variables))
    return loss, logits

  def train_step(self, batch):
    """One Adam step on a batch dict.

    Args:
      batch: input_ids, input_mask int [B, S]; targets int [num_heads, B, S];
        weights float [num_heads, B, S] (0 where nothing is predicted).

    Returns:
      (loss summed over heads, accuracy on the weighted positions), floats.
    """
    loss, logits = self._step(batch["input_ids"], batch["input_mask"],
                              batch["targets"], batch["weights"])
    return float(loss), masked_accuracy(np.asarray(logits), batch["targets"],
                                        batch["weights"])

  def position_table(self):
    """float numpy [max_position_embeddings, hidden]: the position rows."""
    return np.asarray(self.model.embeddings.position_embeddings)
