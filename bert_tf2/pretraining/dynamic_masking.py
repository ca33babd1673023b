"""Masked-LM masking on the fly, in tf.data (`--dynamic_masking`).

Beyond the original: every batch is re-masked when it is read. The original
tokens are restored from `masked_lm_ids`, then new positions are chosen with
create_pretraining_data's rule and 80/10/10 split (not whole words). Batch
`i` uses the stateless seed (seed, i), so a fixed data order reproduces.

Example:
  >>> masker = DynamicMasker(vocab_size=30, max_predictions_per_seq=2,
  ...                        cls_id=1, sep_id=2, mask_id=3)
  >>> batch = {"input_ids": tf.constant([[1, 9, 3, 2, 0]]),
  ...          "input_mask": tf.constant([[1, 1, 1, 1, 0]]),
  ...          "masked_lm_positions": tf.constant([[2, 0]]),
  ...          "masked_lm_ids": tf.constant([[7, 0]]),
  ...          "masked_lm_weights": tf.constant([[1., 0.]])}
  >>> out = masker(batch, tf.constant(0, tf.int64))
  >>> int(tf.reduce_sum(out["masked_lm_weights"]))  # round(4 * 0.15) = 1
  1
"""

import tensorflow as tf


def restore_original_ids(input_ids, positions, ids, weights):
  """Puts the masked-out tokens back.

  Args:
    input_ids: int32 Tensor of shape [batch_size, seq_length].
    positions: int32 Tensor of shape [batch_size, max_predictions_per_seq].
    ids: int32 Tensor of shape [batch_size, max_predictions_per_seq], the
      original token at each position.
    weights: float32 Tensor of shape [batch_size, max_predictions_per_seq],
      1.0 for real predictions, 0.0 for padding.

  Returns:
    int32 Tensor of shape [batch_size, seq_length].
  """
  seq_length = tf.shape(input_ids)[1]
  hits = tf.one_hot(positions, seq_length, dtype=tf.int32)
  hits *= tf.cast(weights > 0, tf.int32)[:, :, None]
  restored = tf.reduce_sum(hits * ids[:, :, None], axis=1)
  covered = tf.reduce_sum(hits, axis=1) > 0
  return tf.where(covered, restored, input_ids)


class DynamicMasker(object):
  """Re-masks a parsed, batched pretraining features dict."""

  def __init__(self, vocab_size, max_predictions_per_seq, masked_lm_prob=0.15,
               cls_id=101, sep_id=102, mask_id=103, seed=12345):
    self.vocab_size = vocab_size
    self.max_predictions_per_seq = max_predictions_per_seq
    self.masked_lm_prob = masked_lm_prob
    self.cls_id = cls_id
    self.sep_id = sep_id
    self.mask_id = mask_id
    self.seed = seed

  def _seed(self, batch_index, stream):
    return tf.stack([tf.cast(self.seed, tf.int64) * 8 + stream,
                     tf.cast(batch_index, tf.int64)])

  def __call__(self, features, batch_index):
    """Returns `features` with new input_ids and masked_lm_* tensors."""
    features = dict(features)
    ids = restore_original_ids(
        features["input_ids"], features["masked_lm_positions"],
        features["masked_lm_ids"], features["masked_lm_weights"])
    batch_size, seq_length = tf.shape(ids)[0], tf.shape(ids)[1]
    max_pred = self.max_predictions_per_seq

    candidate = ((features["input_mask"] > 0) & (ids != self.cls_id) &
                 (ids != self.sep_id))
    num_tokens = tf.reduce_sum(tf.cast(features["input_mask"], tf.float32), 1)
    num_to_predict = tf.cast(tf.round(num_tokens * self.masked_lm_prob),
                             tf.int32)
    num_to_predict = tf.minimum(max_pred, tf.maximum(1, num_to_predict))
    num_to_predict = tf.minimum(
        num_to_predict, tf.reduce_sum(tf.cast(candidate, tf.int32), 1))

    # A random permutation of the candidates: the top `max_pred` scores.
    scores = tf.random.stateless_uniform([batch_size, seq_length],
                                         self._seed(batch_index, 0))
    scores = tf.where(candidate, scores, -1.0)
    k = tf.minimum(max_pred, seq_length)
    _, top = tf.math.top_k(scores, k=k)
    valid = tf.range(k)[None, :] < num_to_predict[:, None]
    # Ascending positions, padding (seq_length) last, then padded with 0.
    positions = tf.sort(tf.where(valid, top, seq_length), axis=1)
    valid = positions < seq_length
    positions = tf.where(valid, positions, 0)
    pad = max_pred - k
    positions = tf.pad(positions, [[0, 0], [0, pad]])
    valid = tf.pad(valid, [[0, 0], [0, pad]])

    labels = tf.gather(ids, positions, batch_dims=1)
    choice = tf.random.stateless_uniform([batch_size, max_pred],
                                         self._seed(batch_index, 1))
    random_ids = tf.random.stateless_uniform(
        [batch_size, max_pred], self._seed(batch_index, 2),
        minval=0, maxval=self.vocab_size, dtype=tf.int32)
    replacement = tf.where(choice < 0.8, self.mask_id,
                           tf.where(choice < 0.9, labels, random_ids))
    # The same scatter of values at the valid positions.
    features["input_ids"] = restore_original_ids(
        ids, positions, replacement, tf.cast(valid, tf.float32))
    features["masked_lm_positions"] = positions
    features["masked_lm_ids"] = tf.where(valid, labels, 0)
    features["masked_lm_weights"] = tf.cast(valid, tf.float32)
    return features
