"""LoRA on the raw-string models (README: `models.text_model(...)
.enable_lora(rank)`): enable, fit a step, save the adapters, load them into
a fresh model of the same directory: the same outputs."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.embedding.encoder import SentenceEncoder
from tests.common import tiny_dir

TEXTS = ["angela merkel visited paris.", "bob met ann in paris.",
         "江泽民在北京。", "the cat sat on the mat"]
NER_LABELS = ["O", "B-PER", "I-PER", "B-LOC"]
NER_TAGS = [["B-PER", "I-PER", "O", "B-LOC", "O"],
            ["B-PER", "O", "B-PER", "O", "B-LOC", "O"],
            ["B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-PER", "O"],
            ["O", "O", "O", "O", "O", "O"]]
CHOICES = [["a cat", "the dog"], ["paris", "bob"], ["北京", "a mat"],
           ["sat", "ran"]]
CONTEXTS = ["the cat sat on the mat in paris, bob met ann."] * 4
ANSWERS = [{"text": "the mat", "answer_start": 15},
           {"text": "paris", "answer_start": 26},
           {"text": "bob", "answer_start": 33},
           {"text": "the cat", "answer_start": 0}]


def _build(kind, ckpt):
  """(fresh raw-string model, x, y) of one task."""
  if kind == "classifier":
    return (models.text_model(models.BertClassifier, ckpt, num_labels=2,
                              max_seq_length=16), TEXTS,
            np.array([0, 1, 0, 1]))
  if kind == "ner":
    return (models.text_model(models.BertTokenClassifier, ckpt,
                              labels=NER_LABELS, max_seq_length=16),
            TEXTS, NER_TAGS)
  if kind == "multiple_choice":
    return (models.text_model(models.BertMultipleChoice, ckpt,
                              max_seq_length=16),
            (TEXTS, CHOICES), np.array([0, 1, 0, 1]))
  if kind == "embedding":
    return (models.text_model(SentenceEncoder, ckpt, max_seq_length=16),
            (TEXTS, [t[::-1] for t in TEXTS]), None)
  assert kind == "squad"
  return (models.squad_text_model(ckpt, max_seq_length=32, doc_stride=8,
                                  max_query_length=8),
          (["where?", "who?", "who met?", "what sat?"], CONTEXTS), ANSWERS)


def _outputs(model, x):
  """What the model returns on raw x, as a flat list of float arrays."""
  if isinstance(model, models.SquadTextModel):
    out = model.predict(x, verbose=0)
    return [np.asarray(out[k], np.float64)
            for k in ("start_logit", "end_logit", "score")]
  if isinstance(model.preprocessor, models.MultipleChoicePreprocessor):
    return [np.asarray(model(tuple(tf.constant(part) for part in x)))]
  if isinstance(x, tuple):  # Sentence pairs: the first side's vectors.
    x = x[0]
  return [np.asarray(model(tf.constant(x)))]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
  return tiny_dir.write(str(tmp_path_factory.mktemp("tiny")))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["classifier", "ner", "multiple_choice",
                                  "embedding", "squad"])
def test_enable_fit_save_load_gives_the_same_outputs(kind, ckpt, tmp_path):
  keras.utils.set_random_seed(0)
  model, x, y = _build(kind, ckpt)
  weights = len(model.trainable_weights)
  model.enable_lora(4)
  lora = [v for v in model.trainable_weights if "lora_kernel" in v.name]
  assert len(lora) == 4   # 1 layer x (query, value) x (a, b)
  assert len(model.trainable_weights) < weights
  before = _outputs(model, x)
  model.compile(optimizer=keras.optimizers.Adam(1e-2))
  model.fit(x, y, epochs=1, batch_size=4, verbose=0)
  tuned = _outputs(model, x)
  assert any(np.abs(t - b).max() > 1e-4 for t, b in zip(tuned, before))
  assert all(np.abs(v.numpy()).max() > 0 for v in lora)  # B moved from 0.

  path = str(tmp_path / "adapters.npz")
  model.save_lora_weights(path)
  keras.utils.set_random_seed(1)  # Another head initialisation.
  fresh, _, _ = _build(kind, ckpt)
  fresh.load_lora_weights(path)
  assert len(fresh.trainable_weights) == len(model.trainable_weights)
  for got, want in zip(_outputs(fresh, x), tuned):
    np.testing.assert_allclose(got, want, atol=1e-6)
