"""SquadModel's runner task: the original loss formula, predict outputs, original names."""

import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.runner.task import ModelTask
from bert_tf2.squad.model import SquadModel

CONFIG = modeling.BertConfig(vocab_size=50, hidden_size=16,
                             num_hidden_layers=1, num_attention_heads=2,
                             intermediate_size=24, max_position_embeddings=16,
                             type_vocab_size=2)


def _log_softmax(x):
  x = x - x.max(axis=-1, keepdims=True)
  return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def test_loss_is_mean_of_start_and_end_cross_entropy():
  task = ModelTask(lambda: SquadModel(CONFIG))
  model = task.build_model()
  rng = np.random.RandomState(0)
  features = {
      "unique_ids": tf.constant([7, 8, 9]),
      "input_ids": tf.constant(rng.randint(0, 50, [3, 12]), tf.int32),
      "input_mask": tf.constant([[1] * 12, [1] * 8 + [0] * 4,
                                 [1] * 5 + [0] * 7], tf.int32),
      "segment_ids": tf.constant([[0] * 6 + [1] * 6] * 3, tf.int32),
      "start_positions": tf.constant([0, 3, 4]),
      "end_positions": tf.constant([0, 5, 4]),
  }
  loss, outputs = task.compute_loss(model, features, training=False)
  start = outputs["start_logits"].numpy()
  end = outputs["end_logits"].numpy()
  assert start.shape == end.shape == (3, 12)
  rows = np.arange(3)
  want = (-_log_softmax(start)[rows, [0, 3, 4]].mean() -
          _log_softmax(end)[rows, [0, 5, 4]].mean()) / 2
  np.testing.assert_allclose(loss.numpy(), want, rtol=1e-5)

  predicted = task.predict_outputs(model, features)
  assert sorted(predicted) == ["end_logits", "start_logits", "unique_ids"]
  np.testing.assert_array_equal(predicted["unique_ids"], [7, 8, 9])
  np.testing.assert_allclose(predicted["start_logits"], start, rtol=1e-6)

  names = task.checkpoint_variables(model)
  assert tuple(names["cls/squad/output_weights"].shape) == (2, 16)
  assert tuple(names["cls/squad/output_bias"].shape) == (2,)
  assert "bert/embeddings/word_embeddings" in names
  assert all(not n.startswith(("squad_model", "span")) for n in names)


def test_runner_and_keras_fit_share_one_loss(monkeypatch):
  # One loss for run_squad.py (runner.ModelTask) and Keras fit (SquadModel): the
  # same value on the same batch, and both through squad.model.span_loss.
  from bert_tf2.squad import model as squad_model  # pylint: disable=g-import-not-at-top
  task = ModelTask(lambda: SquadModel(CONFIG))
  model = task.build_model()
  rng = np.random.RandomState(1)
  features = {
      "input_ids": tf.constant(rng.randint(0, 50, [4, 10]), tf.int32),
      "input_mask": tf.ones([4, 10], tf.int32),
      "segment_ids": tf.zeros([4, 10], tf.int32),
      "start_positions": tf.constant([[0], [2], [5], [9]]),
      "end_positions": tf.constant([[0], [3], [7], [9]]),
  }
  runner_loss, _ = task.compute_loss(model, features, training=False)
  keras_loss = model.compute_loss(x=features, y=None,
                                  y_pred=model(features, training=False))
  np.testing.assert_allclose(runner_loss.numpy(), keras_loss.numpy(),
                             rtol=1e-6)
  calls = []
  real = squad_model.span_loss
  monkeypatch.setattr(squad_model, "span_loss",
                      lambda *a: calls.append(1) or real(*a))
  task.compute_loss(model, features, training=False)
  model.compute_loss(x=features, y=None, y_pred=model(features))
  assert len(calls) == 2
