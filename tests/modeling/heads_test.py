"""Heads and losses against direct numpy computations of the formulas."""

import numpy as np
import pytest
import tensorflow as tf

import modeling
from tests.modeling import helpers


def _log_softmax(x):
  x = x - x.max(-1, keepdims=True)
  return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _layer_norm(x, gamma, beta):
  mean = x.mean(-1, keepdims=True)
  var = ((x - mean) ** 2).mean(-1, keepdims=True)
  return (x - mean) / np.sqrt(var + 1e-12) * gamma + beta


def test_gather_indexes():
  seq = np.arange(2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)
  pos = np.array([[3, 0], [1, 1]])
  got = modeling.gather_indexes(tf.constant(seq), tf.constant(pos)).numpy()
  np.testing.assert_array_equal(got, [seq[0, 3], seq[0, 0], seq[1, 1],
                                      seq[1, 1]])


def test_masked_lm_head_and_loss_match_numpy():
  config = helpers.tiny_config(hidden_act="tanh")
  head = modeling.MaskedLMHead(config)
  head.output_bias.assign(np.random.RandomState(0).randn(97) * 0.1)
  rng = np.random.RandomState(1)
  seq = rng.randn(2, 5, 36).astype(np.float32)
  table = rng.randn(97, 36).astype(np.float32) * 0.1
  pos = np.array([[4, 1, 0], [2, 2, 3]])
  ids = np.array([[5, 6, 7], [8, 9, 10]])
  weights = np.array([[1, 1, 0], [1, 1, 1]], np.float32)
  logits = head(tf.constant(seq), tf.constant(pos), tf.constant(table))
  assert logits.shape == (2, 3, 97)

  x = np.stack([seq[b, p] for b in range(2) for p in pos[b]])
  x = np.tanh(x @ head.transform_dense.kernel.numpy() +
              head.transform_dense.bias.numpy())
  x = _layer_norm(x, 1.0, 0.0)
  want = x @ table.T + head.output_bias.numpy()
  np.testing.assert_allclose(logits.numpy().reshape(6, 97), want, atol=1e-4)

  loss, per_example, log_probs = modeling.masked_lm_loss(logits, ids, weights)
  lp = _log_softmax(want)
  nll = -lp[np.arange(6), ids.reshape(-1)]
  np.testing.assert_allclose(per_example, nll, rtol=1e-4)
  np.testing.assert_allclose(
      loss, (weights.reshape(-1) * nll).sum() / (weights.sum() + 1e-5),
      rtol=1e-4)
  assert log_probs.shape == (6, 97)
  # No positions: every position is predicted.
  assert head(tf.constant(seq), None, tf.constant(table)).shape == (2, 5, 97)
  # All weights zero: loss 0, not NaN (the +1e-5 of the original).
  zero, _, _ = modeling.masked_lm_loss(logits, ids, np.zeros_like(weights))
  assert float(zero) == 0.0


def test_masked_lm_head_config_round_trip():
  config = helpers.tiny_config(hidden_act="tanh")
  head = modeling.MaskedLMHead(config, scope="mlm/predictions")
  clone = modeling.MaskedLMHead.from_config(head.get_config())
  assert clone.config.to_dict() == config.to_dict()
  assert clone.original_scope == "mlm/predictions"
  assert clone.name == head.name == "predictions"
  assert sorted(clone.original_variables()) == sorted(
      head.original_variables())


def test_next_sentence_and_classification():
  nsp = modeling.NextSentenceHead(helpers.tiny_config(hidden_size=6))
  x = np.random.RandomState(2).randn(4, 6).astype(np.float32)
  logits = nsp(tf.constant(x)).numpy()
  np.testing.assert_allclose(logits, x @ nsp.output_weights.numpy().T +
                             nsp.output_bias.numpy(), atol=1e-5)
  labels = np.array([0, 1, 1, 0])
  loss, per_example, _ = modeling.next_sentence_loss(logits, labels)
  nll = -_log_softmax(logits)[np.arange(4), labels]
  np.testing.assert_allclose(per_example, nll, rtol=1e-5)
  np.testing.assert_allclose(loss, nll.mean(), rtol=1e-5)

  cls = modeling.ClassificationHead(helpers.tiny_config(hidden_size=6), 5)
  out = cls(tf.constant(x))
  assert out.shape == (4, 5) and tuple(cls.output_weights.shape) == (5, 6)
  np.testing.assert_array_equal(cls(tf.constant(x)), out)
  assert np.abs(cls(tf.constant(x), training=True) - out).max() > 0
  assert sorted(modeling.original_variable_names(cls)) == ["output_bias",
                                                           "output_weights"]


@pytest.mark.parametrize("make", [
    lambda c: modeling.MaskedLMHead(c, scope="mlm/predictions"),
    lambda c: modeling.NextSentenceHead(c, scope="nsp"),
    lambda c: modeling.ClassificationHead(c, 4, dropout_prob=0.2,
                                          scope="tagger"),
    lambda c: modeling.SquadHead(c)])
def test_every_head_takes_the_config_and_round_trips(make):
  config = helpers.tiny_config(hidden_size=6, num_attention_heads=2,
                               initializer_range=0.5)
  head = make(config)
  assert head.built  # Variables exist before the first call.
  clone = type(head).from_config(head.get_config())
  assert clone.get_config() == head.get_config()
  assert clone.config.to_dict() == config.to_dict()
  assert clone.original_scope == head.original_scope
  assert sorted(modeling.original_variable_names(clone)) == sorted(
      modeling.original_variable_names(head))
  if hasattr(head, "output_weights"):  # The config's initializer range.
    assert np.std(head.output_weights.numpy()) > 0.1


def test_squad_head_and_loss():
  head = modeling.SquadHead(helpers.tiny_config(hidden_size=6))
  x = np.random.RandomState(3).randn(2, 7, 6).astype(np.float32)
  start, end = head(tf.constant(x))
  full = x @ head.output_weights.numpy().T + head.output_bias.numpy()
  np.testing.assert_allclose(start, full[..., 0], atol=1e-5)
  np.testing.assert_allclose(end, full[..., 1], atol=1e-5)
  sp, ep = np.array([1, 6]), np.array([3, 6])
  loss = modeling.squad_loss(start, end, sp, ep)
  want = (-_log_softmax(full[..., 0])[np.arange(2), sp].mean() -
          _log_softmax(full[..., 1])[np.arange(2), ep].mean()) / 2
  np.testing.assert_allclose(loss, want, rtol=1e-5)
  assert sorted(modeling.original_variable_names(head)) == [
      "cls/squad/output_bias", "cls/squad/output_weights"]


def test_layer_norm_function():
  x = np.random.RandomState(4).randn(3, 8).astype(np.float32) * 5 + 2
  np.testing.assert_allclose(modeling.layer_norm(tf.constant(x)),
                             _layer_norm(x, 1.0, 0.0), atol=1e-5)
  assert modeling.get_shape_list(tf.zeros([2, 3]), expected_rank=2) == [2, 3]
  with pytest.raises(ValueError, match="rank"):
    modeling.get_shape_list(tf.zeros([2]), expected_rank=2)
  mask = modeling.create_attention_mask_from_input_mask(
      tf.zeros([2, 3]), tf.constant([[1, 1, 0], [1, 0, 0]]))
  np.testing.assert_array_equal(mask[1], [[1, 0, 0]] * 3)


def test_import_modeling_exports_the_original_names():
  for name in ("BertConfig", "BertModel", "gelu", "get_activation",
               "get_assignment_map_from_checkpoint", "dropout", "layer_norm",
               "create_initializer", "create_attention_mask_from_input_mask",
               "get_shape_list", "reshape_to_matrix", "reshape_from_matrix",
               "assert_rank"):
    assert callable(getattr(modeling, name)), name
  x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
  np.testing.assert_array_equal(modeling.dropout(x, 0.0), x)
  assert modeling.dropout(x, None) is x
  m = modeling.reshape_to_matrix(tf.zeros([2, 3, 4]))
  assert m.shape == (6, 4)
  assert modeling.reshape_from_matrix(m, [2, 3, 4]).shape == (2, 3, 4)
