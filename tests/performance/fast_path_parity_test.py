"""The speed settings compute the same numbers as the plain path.

bench/ runs this project with XLA (`jit_compile`) and the fused query/key/
value projection; the golden tests check the plain path against the
original code. Here both are run on the same weights and inputs (with
padding) and must agree to float32 round-off: forward outputs and the
gradients of a pretraining loss.
"""

import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.pretraining import model as model_lib
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.runner.task import ModelTask


def _features(vocab_size):
  rng = np.random.RandomState(5)
  ids = rng.randint(0, vocab_size, size=(3, 12)).astype(np.int32)
  mask = np.ones_like(ids)
  mask[1, 8:] = 0
  mask[2, 5:] = 0
  segments = np.zeros_like(ids)
  segments[:, 6:] = 1
  return {
      "input_ids": tf.constant(ids), "input_mask": tf.constant(mask),
      "segment_ids": tf.constant(segments),
      "masked_lm_positions": tf.constant([[1, 3], [2, 7], [0, 4]]),
      "masked_lm_ids": tf.constant(rng.randint(0, vocab_size, (3, 2)),
                                   tf.int32),
      "masked_lm_weights": tf.constant([[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]]),
      "next_sentence_labels": tf.constant([[0], [1], [0]]),
  }


def _build(cfg, fused, weights=None):
  model = model_lib.PretrainingModel(cfg)
  for layer in model.bert.encoder_layers:
    layer.attention_self.fused_qkv = fused
  names = modeling.original_variable_names(model)
  if weights is not None:
    for name, value in weights.items():
      names[name].assign(value)
  return model, names


def _outputs_and_grads(model, features, jit):
  task = ModelTask(lambda: PretrainingModel(model.config))

  def run(f):
    with tf.GradientTape() as tape:
      loss, _ = task.compute_loss(model, f, training=False)
    grads = tape.gradient(loss, model.trainable_variables)
    out = model(f, training=False)
    return (loss, out["sequence_output"], out["pooled_output"],
            out["masked_lm_logits"],
            [tf.convert_to_tensor(g) for g in grads])
  return tf.function(run, jit_compile=jit)(features)


def test_xla_and_fused_qkv_match_plain_path():
  cfg = modeling.BertConfig(vocab_size=50, hidden_size=24,
                            num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=40, max_position_embeddings=16)
  tf.keras.utils.set_random_seed(1)
  plain, names = _build(cfg, fused=False)
  weights = {k: v.numpy() for k, v in names.items()}
  fast, _ = _build(cfg, fused=True, weights=weights)
  features = _features(cfg.vocab_size)
  expected = _outputs_and_grads(plain, features, jit=False)
  actual = _outputs_and_grads(fast, features, jit=True)
  for e, a in zip(tf.nest.flatten(expected), tf.nest.flatten(actual)):
    np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-4, atol=1e-5)
  # Sanity: the comparison is not between zeros.
  assert float(tf.reduce_max(tf.abs(expected[1]))) > 0.1
  assert all(float(tf.reduce_max(tf.abs(g))) > 0.0 for g in expected[4])
