"""PretrainingModel's runner task: the training scalars logged beside the loss."""

import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.runner.task import ModelTask


def _batch(rng, batch=4, seq=8, preds=3, vocab=30):
  weights = np.ones([batch, preds], np.float32)
  weights[0, 2] = 0.0  # A padding prediction: must not count.
  return {
      "input_ids": tf.constant(rng.integers(1, vocab, [batch, seq]), tf.int32),
      "input_mask": tf.ones([batch, seq], tf.int32),
      "segment_ids": tf.zeros([batch, seq], tf.int32),
      "masked_lm_positions": tf.constant(
          rng.integers(1, seq, [batch, preds]), tf.int32),
      "masked_lm_ids": tf.constant(rng.integers(1, vocab, [batch, preds]),
                                   tf.int32),
      "masked_lm_weights": tf.constant(weights),
      "next_sentence_labels": tf.constant(rng.integers(0, 2, [batch, 1]),
                                          tf.int32),
  }


def test_training_scalars_are_the_loss_parts_and_eval_metrics():
  cfg = modeling.BertConfig(vocab_size=30, hidden_size=16,
                            num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, max_position_embeddings=16)
  task = ModelTask(lambda: PretrainingModel(cfg))
  model = task.build_model()
  features = _batch(np.random.default_rng(0))
  loss, outputs = task.compute_loss(model, features, training=False)
  assert task.training_scalars() == (
      "masked_lm_loss", "masked_lm_accuracy", "next_sentence_loss",
      "next_sentence_accuracy")
  np.testing.assert_allclose(
      float(outputs["masked_lm_loss"]) + float(outputs["next_sentence_loss"]),
      float(loss), rtol=1e-6)
  # On one batch the accuracies equal the evaluation metrics.
  metrics = task.create_metrics()
  task.update_metrics(metrics, features, outputs)
  for name in ("masked_lm_accuracy", "next_sentence_accuracy"):
    np.testing.assert_allclose(float(outputs[name]),
                               float(metrics[name].result()), rtol=1e-6)
  assert not ModelTask(lambda: PretrainingModel(cfg, use_nsp=False)
                       ).training_scalars()[2:]
