"""The original losses (run_pretraining.py, run_classifier.py, run_squad.py).

All take float logits, compute log-softmax in float32 and return float32.

Example:
  >>> import tensorflow as tf
  >>> loss, per_example, log_probs = classification_loss(
  ...     tf.zeros([2, 3]), tf.constant([0, 2]), num_labels=3)
  >>> round(float(loss), 4)   # log(3)
  1.0986
"""

import tensorflow as tf


def _log_softmax(logits):
  return tf.nn.log_softmax(tf.cast(logits, tf.float32), axis=-1)


def masked_lm_loss(logits, label_ids, label_weights):
  """Masked-LM loss: sum(weight * nll) / (sum(weight) + 1e-5).

  Args:
    logits: float [batch_size, num_predictions, vocab_size] (or already
      flattened [batch_size * num_predictions, vocab_size]).
    label_ids: int [batch_size, num_predictions], the true token ids.
    label_weights: float [batch_size, num_predictions], 1.0 for real
      predictions and 0.0 for padding.

  Returns:
    (loss, per_example_loss, log_probs): scalar; [batch*num_predictions];
    [batch*num_predictions, vocab_size].
  """
  vocab_size = logits.shape[-1]
  log_probs = _log_softmax(tf.reshape(logits, [-1, vocab_size]))
  label_ids = tf.reshape(tf.cast(label_ids, tf.int32), [-1])
  label_weights = tf.reshape(tf.cast(label_weights, tf.float32), [-1])
  one_hot = tf.one_hot(label_ids, depth=vocab_size, dtype=tf.float32)
  per_example_loss = -tf.reduce_sum(log_probs * one_hot, axis=[-1])
  numerator = tf.reduce_sum(label_weights * per_example_loss)
  denominator = tf.reduce_sum(label_weights) + 1e-5
  return numerator / denominator, per_example_loss, log_probs


def next_sentence_loss(logits, labels):
  """NSP loss: mean over the batch of -log p(label).

  Args:
    logits: float [batch_size, 2].
    labels: int [batch_size] (or [batch_size, 1]); 0 = "is next".

  Returns:
    (loss, per_example_loss, log_probs).
  """
  return classification_loss(logits, tf.reshape(labels, [-1]), 2)


def classification_loss(logits, labels, num_labels):
  """Softmax cross-entropy, mean over the batch (run_classifier.py).

  Args:
    logits: float [batch_size, num_labels].
    labels: int [batch_size].
    num_labels: int.

  Returns:
    (loss, per_example_loss, log_probs).
  """
  log_probs = _log_softmax(logits)
  one_hot = tf.one_hot(tf.cast(labels, tf.int32), depth=num_labels,
                       dtype=tf.float32)
  per_example_loss = -tf.reduce_sum(one_hot * log_probs, axis=-1)
  return tf.reduce_mean(per_example_loss), per_example_loss, log_probs


def squad_span_loss(logits, positions):
  """-mean log p(position) over the batch for start or end logits.

  Args:
    logits: float [batch_size, seq_length].
    positions: int [batch_size].

  Returns:
    scalar float32.
  """
  seq_length = tf.shape(logits)[1]
  one_hot = tf.one_hot(tf.cast(positions, tf.int32), depth=seq_length,
                       dtype=tf.float32)
  return -tf.reduce_mean(tf.reduce_sum(one_hot * _log_softmax(logits),
                                       axis=-1))


def squad_loss(start_logits, end_logits, start_positions, end_positions):
  """(start loss + end loss) / 2, as run_squad.py."""
  return (squad_span_loss(start_logits, start_positions) +
          squad_span_loss(end_logits, end_positions)) / 2.0
