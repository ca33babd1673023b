"""`TextPredictor` and the Keras text model's `predict` run their examples
shortest first (issue 64, item 5).

`models.load_predictor(dir).predict` gives the text model batches of
texts of similar length (the text model trims each batch to its longest
text), and returns the answers in input order: the same answers as the
unsorted run (labels exact, floats within 1e-5) on a shuffled mix of
short and long texts, with fewer padded tokens (the control: the same
texts unsorted).
"""

import os

import keras
import numpy as np
import pytest

from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import example_order
from bert_tf2.common import text_model
from bert_tf2.predict import batching
from tests.common import tiny_dir

WORDS = ["angela", "merkel", "visited", "paris", "bob", "met", "ann", "the",
         "cat", "sat", "on", "mat", "dog", "ran"]


def _mix(n=24, seed=0):
  """n texts, every other one short (1-3 words) or long (9-13), shuffled,
  with a few (text_a, text_b) pairs."""
  rng = np.random.RandomState(seed)
  texts = [" ".join(rng.choice(WORDS, (1 + i % 3) if i % 2 else
                               (9 + i % 5))) for i in range(n)]
  x = [(t, "the dog ran") if i % 7 == 3 else t for i, t in enumerate(texts)]
  return [x[i] for i in rng.permutation(n)]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
  keras.utils.set_random_seed(5)
  config = tiny_dir.config()
  config.initializer_range = 0.5
  root = str(tmp_path_factory.mktemp("sorted"))
  pretrained = os.path.join(root, "pretrained")
  os.makedirs(pretrained)
  tiny_dir.write(pretrained)
  return {"classifier": tiny_dir.write_run(
      os.path.join(root, "classifier"), "classifier",
      BertClassifier(config, 3),
      preprocessor=dict(do_lower_case=True, max_seq_length=32),
      head=dict(num_labels=3), outputs=dict(labels=["a", "b", "c"])),
          "pretrained": pretrained}


def _padded_tokens(predictor, x, batch_size):
  """Answers of predictor.predict(x) and the tokens of the batches its
  text model was given, each batch counted at its longest text (what
  `TextModel.task_features` trims it to, before rounding up)."""
  model = predictor.model
  lengths = batching.features_function(model.preprocessor)
  given = []
  original = model.predict

  def recording(inputs, batch_size=None, **kwargs):
    given.append((inputs, batch_size))
    return original(inputs, batch_size=batch_size, **kwargs)

  model.predict = recording
  try:
    answers = predictor.predict(x, batch_size=batch_size)
  finally:
    del model.predict
  (inputs, size), = given
  rows = example_order._rows(inputs)  # pylint: disable=protected-access
  pairs = [(r, None) if isinstance(r, str) else (r[0], r[1] or None)
           for r in rows]
  tokens = lengths(pairs)["input_mask"].sum(axis=1)
  return answers, sum(len(tokens[b:b + size]) * tokens[b:b + size].max()
                      for b in range(0, len(tokens), size))


def test_classifier_sorted_answers_are_the_unsorted_ones(run):
  predictor = models.load_predictor(run["classifier"], precision="float32")
  control = models.load_predictor(run["classifier"], precision="float32")
  control.sort_by_length = False
  control.model.sort_by_length = False
  x = _mix()
  ours, ours_tokens = _padded_tokens(predictor, x, 4)
  theirs, their_tokens = _padded_tokens(control, x, 4)
  assert [r["label"] for r in ours] == [r["label"] for r in theirs]
  np.testing.assert_allclose([r["probabilities"] for r in ours],
                             [r["probabilities"] for r in theirs],
                             atol=1e-5)
  # In input order: each answer is its example's own.
  for i in (0, 5, len(x) - 1):
    np.testing.assert_allclose(ours[i]["probabilities"],
                               predictor.predict([x[i]])[0]["probabilities"],
                               atol=1e-5)
  assert len({r["label"] for r in ours}) > 1
  # Fewer padded tokens: batches of similar lengths.
  assert ours_tokens < 0.8 * their_tokens, (ours_tokens, their_tokens)


def test_keras_predict_runs_shortest_first_outputs_in_input_order(
    run, monkeypatch):
  model = models.load(run["classifier"], precision="float32")
  given = []
  as_dataset = text_model._as_dataset  # pylint: disable=protected-access

  def recording(x, *args, **kwargs):
    given.append(x)
    return as_dataset(x, *args, **kwargs)
  monkeypatch.setattr(text_model, "_as_dataset", recording)
  x = _mix()
  ours = model.predict(x, batch_size=4, verbose=0)
  model.sort_by_length = False
  theirs = model.predict(x, batch_size=4, verbose=0)
  columns = lambda rows: text_model.text_inputs.as_columns(
      text_model.text_inputs.check_examples(rows, "x"))
  order = example_order.length_order(columns(x))
  assert order != list(range(len(x)))
  # The model was given the examples shortest first, then (the control)
  # in input order; the outputs are row for row the unsorted ones.
  assert given == [example_order.take(columns(x), order), columns(x)]
  assert ours.shape == (len(x), 3)
  np.testing.assert_allclose(ours, theirs, atol=1e-5)
  assert len(set(ours.argmax(-1))) > 1


def test_embedding_and_squad_columns_keep_input_order(run):
  directory = run["pretrained"]
  encoder = models.load_predictor(directory, task="embedding",
                                  max_seq_length=32, precision="float32")
  x = [t for t in _mix(12, seed=1) if isinstance(t, str)]
  sorted_vectors = np.stack([r["embedding"] for r in encoder.predict(x)])
  encoder.sort_by_length = False
  vectors = np.stack([r["embedding"] for r in encoder.predict(x)])
  np.testing.assert_allclose(sorted_vectors, vectors, atol=1e-5)
  assert example_order.length_order(x) != list(range(len(x)))
  squad = models.load_predictor(directory, task="squad", max_seq_length=32,
                                doc_stride=8, max_query_length=6,
                                precision="float32")
  questions = ["who ran?", "the cat?", "where did angela merkel go?"]
  contexts = [" ".join(x[:3]), x[4], x[5]]
  ours = squad.predict((questions, contexts))
  squad.sort_by_length = False
  theirs = squad.predict((questions, contexts))
  assert [r["answer"] for r in ours] == [r["answer"] for r in theirs]
  np.testing.assert_allclose([r["score"] for r in ours],
                             [r["score"] for r in theirs], atol=1e-5)


if __name__ == "__main__":
  pytest.main([__file__])
