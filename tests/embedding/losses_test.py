"""The multiple-negatives ranking loss against a hand-computed batch."""

import math

import numpy as np
import tensorflow as tf

from bert_tf2.embedding import losses


def _ce(logits, right):
  return -(logits[right] - math.log(sum(math.exp(v) for v in logits)))


def test_in_batch_negatives_hand_computed():
  # Unit vectors so that cosines are easy: anchors a0=(1,0), a1=(0,1);
  # positives p0=(1,0), p1=(0.6,0.8).
  anchors = tf.constant([[2., 0.], [0., 3.]])   # norms do not matter
  positives = tf.constant([[1., 0.], [0.6, 0.8]])
  scale = 20.
  # cos(a0,p0)=1, cos(a0,p1)=0.6; cos(a1,p0)=0, cos(a1,p1)=0.8
  expected = (_ce([scale * 1., scale * .6], 0) +
              _ce([scale * 0., scale * .8], 1)) / 2
  got = losses.multiple_negatives_ranking_loss(anchors, positives,
                                               scale=scale)
  np.testing.assert_allclose(float(got), expected, rtol=1e-5)


def test_hard_negatives_join_every_anchors_candidates():
  anchors = tf.constant([[1., 0.], [0., 1.]])
  positives = tf.constant([[1., 0.], [0., 1.]])
  negatives = tf.constant([[0., 1.], [1., 1.]])
  s = 20.
  r = 1 / math.sqrt(2.)
  # candidates: p0, p1, n0, n1
  expected = (_ce([s * 1., s * 0., s * 0., s * r], 0) +
              _ce([s * 0., s * 1., s * 1., s * r], 1)) / 2
  got = losses.multiple_negatives_ranking_loss(anchors, positives, negatives)
  np.testing.assert_allclose(float(got), expected, rtol=1e-5)
  assert float(got) > float(
      losses.multiple_negatives_ranking_loss(anchors, positives))
