"""The multiple-negatives ranking loss (in-batch negatives).

The candidates of anchor i are every positive (and hard negative) of the
batch, the right one positive_i; the loss is the softmax cross-entropy of
scale * cosine(anchor_i, candidate_j) over j (sentence-transformers'
MultipleNegativesRankingLoss).

Example:
  >>> import tensorflow as tf
  >>> a = tf.constant([[1., 0.], [0., 1.]])
  >>> loss = multiple_negatives_ranking_loss(a, a, scale=1.)
  >>> round(float(loss), 4)   # -log(e / (e + 1))
  0.3133
"""

import tensorflow as tf

from bert_tf2.embedding import pooling


def similarity_matrix(anchors, candidates):
  """Cosine similarities float [num_anchors, num_candidates]."""
  return tf.matmul(pooling.l2_normalize(anchors),
                   pooling.l2_normalize(candidates), transpose_b=True)


def _candidates(positives, negatives):
  if negatives is None:
    return positives
  return tf.concat([positives, negatives], axis=0)


def multiple_negatives_ranking_loss(anchors, positives, negatives=None,
                                    scale=20.0):
  """Mean in-batch-negatives cross-entropy.

  Args:
    anchors: float [batch_size, hidden_size].
    positives: float [batch_size, hidden_size]; row i is anchor i's match.
    negatives: optional float [batch_size, hidden_size] hard negatives,
      added to every anchor's candidates.
    scale: multiplies the cosine similarities before the softmax.

  Returns:
    float32 scalar.
  """
  logits = scale * similarity_matrix(anchors,
                                     _candidates(positives, negatives))
  labels = tf.range(tf.shape(anchors)[0])
  return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
      labels=labels, logits=tf.cast(logits, tf.float32)))


def in_batch_correct(anchors, positives, negatives=None):
  """float32 [batch_size]: 1.0 where anchor i's most similar candidate (as
  in `multiple_negatives_ranking_loss`) is positive i."""
  similarities = similarity_matrix(anchors, _candidates(positives, negatives))
  best = tf.argmax(similarities, axis=-1, output_type=tf.int32)
  return tf.cast(tf.equal(best, tf.range(tf.shape(anchors)[0])), tf.float32)
