"""Every task's training step compiles under XLA and computes what it
computes without it.

`--jit_compile` left unset turns XLA on for long float32 CPU training runs
(`runner.speed_defaults`), so every script's task must compile: the
classifier (and multi-label), NER with and without the CRF, multiple
choice ([batch, choices, seq]), sentence embeddings (anchor, positive, negative), SQuAD and
pretraining (masked positions, NSP). For each, the loss and the gradients
of one batch under `tf.function(jit_compile=True)` equal those of the plain
`tf.function` (dropout off: the same weights, the same batch) to float32
round-off.
"""

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.embedding.model import BiEncoder
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.runner.task import ModelTask
from bert_tf2.squad.model import SquadModel

CFG = modeling.BertConfig(vocab_size=40, hidden_size=16, num_hidden_layers=2,
                          num_attention_heads=2, intermediate_size=24,
                          max_position_embeddings=32)
BATCH, SEQ = 4, 12


def _sequence(rng, shape):
  """input_ids, input_mask, segment_ids of `shape` (..., SEQ), padded."""
  lengths = rng.randint(4, SEQ + 1, size=shape[:-1])
  mask = (np.arange(SEQ) < lengths[..., None]).astype(np.int32)
  ids = rng.randint(5, CFG.vocab_size, size=shape).astype(np.int32) * mask
  segments = ((np.arange(SEQ) >= 3) * mask).astype(np.int32)
  return {"input_ids": ids, "input_mask": mask, "segment_ids": segments}


def _features(kind, rng):
  f = _sequence(rng, (BATCH, SEQ))
  if kind == "classifier":
    f["label_ids"] = rng.randint(0, 3, BATCH).astype(np.int32)
  elif kind == "multi_label":
    f["label_ids"] = rng.randint(0, 2, (BATCH, 3)).astype(np.int32)
  elif kind in ("ner", "ner_crf"):
    f["label_ids"] = rng.randint(0, 3, (BATCH, SEQ)).astype(np.int32)
    f["label_mask"] = f["input_mask"].copy()
    f["label_mask"][:, 0] = 0
  elif kind == "multiple_choice":
    f = _sequence(rng, (BATCH, 3, SEQ))
    f["label_ids"] = rng.randint(0, 3, BATCH).astype(np.int32)
  elif kind == "embedding":
    f = {"%s_%s" % (side, k): v
         for side in ("anchor", "positive", "negative")
         for k, v in _sequence(rng, (BATCH, SEQ)).items()}
  elif kind == "squad":
    f["start_positions"] = rng.randint(0, SEQ, BATCH).astype(np.int32)
    f["end_positions"] = rng.randint(0, SEQ, BATCH).astype(np.int32)
  elif kind == "pretraining":
    f["masked_lm_positions"] = np.stack([
        np.sort(rng.choice(np.arange(1, 4), 2, replace=False))
        for _ in range(BATCH)]).astype(np.int32)
    f["masked_lm_ids"] = rng.randint(5, CFG.vocab_size,
                                     (BATCH, 2)).astype(np.int32)
    f["masked_lm_weights"] = np.ones((BATCH, 2), np.float32)
    f["next_sentence_labels"] = rng.randint(0, 2, (BATCH, 1)).astype(
        np.int32)
  return {k: tf.constant(v) for k, v in f.items()}


MODELS = {
    "classifier": lambda: BertClassifier(CFG, 3),
    "multi_label": lambda: BertClassifier(CFG, 3, multi_label=True),
    "ner": lambda: BertTokenClassifier(CFG, 3),
    "ner_crf": lambda: BertTokenClassifier(CFG, 3, crf=True),
    "multiple_choice": lambda: BertMultipleChoice(CFG),
    "embedding": lambda: BiEncoder(CFG),
    "squad": lambda: SquadModel(CFG),
    "pretraining": lambda: PretrainingModel(CFG),
}


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_training_step_same_under_xla(kind):
  tf.keras.utils.set_random_seed(1)
  task = ModelTask(MODELS[kind])
  model = task.build_model()
  features = _features(kind, np.random.RandomState(0))
  task.compute_loss(model, features, training=False)  # Builds the model.
  variables = model.trainable_variables

  def step(features):
    with tf.GradientTape() as tape:
      loss, _ = task.compute_loss(model, features, training=False)
    return loss, tape.gradient(loss, variables)

  loss, grads = tf.function(step)(features)
  xla_loss, xla_grads = tf.function(step, jit_compile=True)(features)
  assert np.isfinite(float(loss)) and float(loss) > 0
  np.testing.assert_allclose(float(xla_loss), float(loss), rtol=1e-5)
  assert len(grads) == len(xla_grads) == len(variables)
  for var, g, x in zip(variables, grads, xla_grads):
    if g is None:
      assert x is None, var.name
      continue
    g, x = tf.convert_to_tensor(g).numpy(), tf.convert_to_tensor(x).numpy()
    np.testing.assert_allclose(x, g, rtol=1e-4,
                               atol=1e-6 + 1e-4 * np.abs(g).max(),
                               err_msg=var.name)
