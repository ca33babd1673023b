"""`bert_tf2.models.load` gives a model ready to use: compiled (the task's
loss and metrics), so `fit` and `evaluate` run straight away; an argument
its task model cannot take, or a contradiction between them, is one
InputError line before anything is built; a multi-label model's decision
threshold goes from model.json through the Keras model, its predictor and
its `.keras` file."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.ner import crf
from tests.common import tiny_dir
from tests.common.models_load_docs_test import LABELS as TAGS
from tests.common.models_load_docs_test import _ner_run

TEXTS = ["angela merkel visited paris", "the cat sat on the mat"]


def _classifier_run(directory, **head):
  """A run_classifier.py output_dir with a 2-label head of settings
  `head`."""
  keras.utils.set_random_seed(1)
  return tiny_dir.write_run(
      directory, "classifier", BertClassifier(tiny_dir.config(), 2, **head),
      preprocessor=dict(do_lower_case=True, max_seq_length=12),
      head=dict(num_labels=2, **head),
      outputs=dict(labels=["no", "yes"], regression=False), step=3)


def test_a_loaded_model_evaluates_and_fits_straight_away(tmp_path):
  model = models.load(_classifier_run(str(tmp_path / "run")))
  assert model.compiled
  scores = model.evaluate(TEXTS, np.array([0, 1]), return_dict=True,
                          verbose=0)
  assert set(scores) == {"loss", "accuracy"}, scores
  history = model.fit(TEXTS, np.array([0, 1]), epochs=1, verbose=0)
  assert np.isfinite(history.history["loss"][0])
  tagger = models.load(_ner_run(str(tmp_path / "ner")))
  words = [t.split() for t in TEXTS]
  tags = [["B-PER", "I-PER", "O", "B-LOC"], ["O"] * 6]
  assert set(tagger.evaluate(words, tags, return_dict=True, verbose=0)) == {
      "loss", "token_accuracy"}
  assert np.isfinite(tagger.fit(words, tags, epochs=1,
                                verbose=0).history["loss"][0])


def _refused(pattern, **kwargs):
  with pytest.raises(InputError, match=pattern) as refused:
    models.load(**kwargs)
  assert "\n" not in str(refused.value)


def test_arguments_a_model_cannot_take_are_one_input_error_line(tmp_path):
  pretrained = tiny_dir.write(str(tmp_path))
  _refused(r": BertClassifier takes no argument bogus \(recorded in "
           r"model.json or given\); it takes ", path=pretrained,
           task="classifier", num_labels=2, bogus=1)
  _refused(r": BertClassifier needs num_labels \(neither recorded",
           path=pretrained, task="classifier")
  _refused(r": SentenceEncoder takes no argument crf", path=pretrained,
           task="embedding", crf=True)
  allowed = [a.tolist() for a in crf.allowed_transitions(TAGS, "BIO")]
  _refused(r"^allowed: transition constraints need a CRF head", path=
           pretrained, task="ner", labels=TAGS, allowed=allowed)
  _refused(r"^allowed: expected transition masks \(pairs, start, end\) of "
           r"shapes \[\(3, 3\), \(3,\), \(3,\)\] for 3 labels",
           path=pretrained, task="ner", labels=TAGS[:3], crf=True,
           allowed=allowed)
  _refused(r"^threshold=0\.7: only a multi-label model", path=pretrained,
           task="classifier", num_labels=2, threshold=0.7)
  _refused(r"^threshold=1\.5: expected a probability strictly between 0 "
           r"and 1", path=pretrained, task="classifier", num_labels=2,
           multi_label=True, threshold=1.5)


def test_a_recorded_threshold_decides_on_every_path(tmp_path):
  run = _classifier_run(str(tmp_path / "run"), multi_label=True,
                        threshold=0.8)
  model = models.load(run)
  assert model.task.threshold == 0.8
  # Probabilities 0.73 and 0.88: one label at 0.8 (two at the default).
  logits = tf.constant([[1.0, 2.0]])
  assert model.task.head_outputs(logits)["predicted"].numpy().tolist() == [
      [False, True]]
  answers = models.load_predictor(run).predict(TEXTS)
  for answer in answers:
    assert answer["labels"] == [
        n for n, p in zip(["no", "yes"], answer["probabilities"]) if p >= 0.8]
  path = str(tmp_path / "model.keras")
  model.save(path)
  assert keras.saving.load_model(path).task.threshold == 0.8
  assert models.load(run, threshold=0.5).task.threshold == 0.5
