"""The CRF head against brute-force enumeration of every tag path."""

import itertools

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.ner import crf

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def _score(e, path, trans, start, end):
  s = start[path[0]] + end[path[-1]] + sum(e[t, y] for t, y in
                                           enumerate(path))
  return s + sum(trans[a, b] for a, b in zip(path, path[1:]))


def _brute(e, n, trans, start, end, allowed=None):
  """(log Z, {path: score}) over the paths of length n with no forbidden
  move; forbidden paths get the FORBIDDEN additions like the layer."""
  if allowed is not None:
    pairs, ok_s, ok_e = allowed
    trans = np.where(pairs, trans, crf.FORBIDDEN)
    start = np.where(ok_s, start, crf.FORBIDDEN)
    end = np.where(ok_e, end, crf.FORBIDDEN)
  scores = {p: _score(e, p, trans, start, end)
            for p in itertools.product(range(e.shape[1]), repeat=n)}
  values = np.array(list(scores.values()), np.float64)
  log_z = values.max() + np.log(np.exp(values - values.max()).sum())
  return log_z, scores


def _random(seed, batch=3, steps=5, labels=5):
  rng = np.random.RandomState(seed)
  return (rng.randn(batch, steps, labels).astype(np.float32),
          rng.randn(labels, labels).astype(np.float32),
          rng.randn(labels).astype(np.float32),
          rng.randn(labels).astype(np.float32), rng)


@pytest.mark.parametrize("seed", [0, 1])
def test_log_likelihood_and_viterbi_match_brute_force(seed):
  e, trans, start, end, rng = _random(seed)
  lengths = np.array([5, 3, 1], np.int32)
  tags = rng.randint(0, 5, size=[3, 5]).astype(np.int32)
  ll = crf.log_likelihood(e, tags, lengths, trans, start, end).numpy()
  path, best = crf.viterbi_decode(e, lengths, trans, start, end)
  for b, n in enumerate(lengths):
    log_z, scores = _brute(e[b], n, trans, start, end)
    gold = tuple(tags[b, :n])
    np.testing.assert_allclose(ll[b], scores[gold] - log_z, rtol=1e-5,
                               atol=1e-4)
    argmax = max(scores, key=scores.get)
    assert tuple(path.numpy()[b, :n]) == argmax
    assert (path.numpy()[b, n:] == 0).all()
    np.testing.assert_allclose(best.numpy()[b], scores[argmax], rtol=1e-5)


def test_zero_length_has_log_likelihood_zero():
  e, trans, start, end, _ = _random(2, batch=1)
  ll = crf.log_likelihood(e, np.zeros([1, 5], np.int32), [0], trans, start,
                          end)
  assert ll.numpy()[0] == 0.0


def test_allowed_transitions_bio_and_bioes():
  pairs, s, e = crf.allowed_transitions(LABELS, "BIO")
  o, b_per, i_per, b_loc, i_loc = range(5)
  assert not pairs[o, i_per] and not pairs[b_loc, i_per]
  assert pairs[b_per, i_per] and pairs[i_per, i_per] and pairs[i_per, o]
  assert not s[i_per] and s[b_per] and e.all()
  tags = ["O", "B-X", "I-X", "E-X", "S-X"]
  pairs, s, e = crf.allowed_transitions(tags, "BIOES")
  o, b, i, end_, single = range(5)
  assert pairs[b, i] and pairs[b, end_] and pairs[i, end_]
  assert not pairs[b, o] and not pairs[o, end_] and not pairs[end_, i]
  assert pairs[end_, b] and pairs[single, single] and not pairs[b, single]
  assert list(s) == [True, True, False, False, True]
  assert list(e) == [True, False, False, True, True]
  pairs, s, e = crf.allowed_transitions(LABELS, "IOB1")
  assert pairs.all() and s.all() and e.all()


def _layer(trans, start, end, allowed):
  layer = crf.CRF(len(LABELS), allowed=allowed)
  layer.transitions.assign(trans)
  layer.start_transitions.assign(start)
  layer.end_transitions.assign(end)
  return layer


def test_layer_with_mask_and_forbidden_transitions_matches_brute_force():
  """Emissions on word-piece positions; label_mask picks the first pieces;
  forbidden moves favoured by the scores are still never decoded."""
  e, trans, start, end, rng = _random(3, batch=2, steps=7)
  o, i_per = 0, 2
  trans[o, i_per] = 5.0      # O -> I-PER would win without the rule.
  start[i_per] = 5.0
  allowed = crf.allowed_transitions(LABELS, "BIO")
  layer = _layer(trans, start, end, allowed)
  mask = np.array([[0, 1, 0, 1, 1, 0, 0], [0, 1, 1, 0, 1, 1, 0]], np.int32)
  labels = rng.randint(0, 5, size=[2, 7]).astype(np.int32)
  labels[0, [1, 3, 4]] = [1, 2, 0]            # a valid BIO path
  decoded = layer.decode(e, mask).numpy()
  ll = layer.log_likelihood(e, mask, labels).numpy()
  for b in range(2):
    pos = np.flatnonzero(mask[b])
    log_z, scores = _brute(e[b, pos], len(pos), trans, start, end, allowed)
    best = max(scores, key=scores.get)
    assert tuple(decoded[b, pos]) == best
    assert (decoded[b][mask[b] == 0] == 0).all()
    np.testing.assert_allclose(ll[b], scores[tuple(labels[b, pos])] - log_z,
                               rtol=1e-5, atol=1e-3)
    assert all(allowed[0][x, y] for x, y in zip(best, best[1:]))
    assert allowed[1][best[0]]
  # Without the rules the favoured forbidden start is decoded: the rules act.
  free = _layer(trans, start, end, None).decode(e, mask).numpy()
  assert (free != decoded).any()


def test_start_rule_only_where_the_window_starts_a_sentence():
  e = np.zeros([2, 3, 5], np.float32)
  e[:, 1, 2] = 3.0                          # I-PER strongly at word 1
  layer = _layer(np.zeros([5, 5]), np.zeros(5), np.zeros(5),
                 crf.allowed_transitions(LABELS, "BIO"))
  mask = np.array([[0, 1, 0], [0, 1, 0]])
  got = layer.decode(e, mask, starts=tf.constant([True, False])).numpy()
  assert got[0, 1] != 2 and got[1, 1] == 2


def test_gradient_flows_and_layer_serializes(tmp_path):
  e, trans, start, end, rng = _random(4, batch=2, steps=4)
  layer = _layer(trans, start, end, crf.allowed_transitions(LABELS, "BIO"))
  logits = tf.Variable(e)
  mask = tf.ones([2, 4], tf.int32)
  with tf.GradientTape() as tape:
    loss = -tf.reduce_mean(layer.log_likelihood(logits, mask,
                                                tf.zeros([2, 4], tf.int32)))
  grads = tape.gradient(loss, [logits, layer.transitions])
  assert all(np.isfinite(g.numpy()).all() and np.abs(g.numpy()).sum() > 0
             for g in grads)
  clone = keras.layers.deserialize(keras.layers.serialize(layer))
  assert clone.allowed == layer.allowed and clone.num_labels == 5
