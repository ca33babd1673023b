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
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import example_order
from bert_tf2.common import text_model
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


def _masks(preprocessor, pairs):
  """The preprocessor's input_mask [len(pairs), max_seq_length] (NumPy) of
  [(text_a, text_b or None), ...]."""
  out = preprocessor((tf.constant([a for a, _ in pairs]),
                      tf.constant([b or "" for _, b in pairs])))
  return out["input_mask"].numpy()


def _recording_batches(monkeypatch):
  """A list that gets the examples each `TextModel.predict` call runs, in
  the order it cuts them into batches (what it hands its loop without
  Keras, which takes them all here)."""
  given = []
  run_batches = text_model.TextModel._predict_without_keras_loop  # pylint: disable=protected-access

  def recording(self, x, batch_size):
    given.append(x)
    outputs = run_batches(self, x, batch_size)
    assert outputs is not None  # Keras' loop not taken.
    return outputs
  monkeypatch.setattr(text_model.TextModel, "_predict_without_keras_loop",
                      recording)
  return given


def _padded_tokens(predictor, x, batch_size, monkeypatch):
  """Answers of predictor.predict(x) and the tokens of the batches its
  text model ran, each batch counted at its longest text (what
  `TextModel.task_features` trims it to)."""
  model = predictor.model
  given = _recording_batches(monkeypatch)
  answers = predictor.predict(x, batch_size=batch_size)
  monkeypatch.undo()
  rows = example_order.rows(given[-1])
  pairs = [(r, None) if isinstance(r, str) else (r[0], r[1] or None)
           for r in rows]
  tokens = _masks(model.preprocessor, pairs).sum(axis=1)
  return answers, sum(len(tokens[b:b + batch_size]) *
                      tokens[b:b + batch_size].max()
                      for b in range(0, len(tokens), batch_size))


def test_classifier_sorted_answers_are_the_unsorted_ones(run, monkeypatch):
  predictor = models.load_predictor(run["classifier"], precision="float32")
  control = models.load_predictor(run["classifier"], precision="float32")
  control.model.sort_by_length = False
  x = _mix()
  ours, ours_tokens = _padded_tokens(predictor, x, 4, monkeypatch)
  theirs, their_tokens = _padded_tokens(control, x, 4, monkeypatch)
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
  measured = []
  as_dataset = text_model._as_dataset  # pylint: disable=protected-access

  def recording(x, *args, **kwargs):
    measured.append(x)
    return as_dataset(x, *args, **kwargs)
  monkeypatch.setattr(text_model, "_as_dataset", recording)
  given = _recording_batches(monkeypatch)
  x = _mix()
  ours = model.predict(x, batch_size=4, verbose=0)
  model.sort_by_length = False
  theirs = model.predict(x, batch_size=4, verbose=0)
  columns = lambda rows: text_model.text_inputs.as_columns(
      text_model.text_inputs.check_examples(rows, "x"))
  # The model ran the examples by word pieces, shortest first (after
  # `example_lengths` read them in input order), then (the control) in
  # input order; the outputs are row for row the unsorted ones.
  assert measured == [columns(x)]
  assert len(given) == 2 and given[1] == columns(x)
  order = example_order.length_order(columns(x),
                                     model.example_lengths(columns(x)))
  assert order != list(range(len(x)))
  assert given[0] == example_order.take(columns(x), order)
  pieces = _masks(model.preprocessor, text_model.text_inputs.check_examples(
      example_order.rows(given[0]), "x")).sum(axis=1)
  assert list(pieces) == sorted(pieces)
  assert ours.shape == (len(x), 3)
  np.testing.assert_allclose(ours, theirs, atol=1e-5)
  assert len(set(ours.argmax(-1))) > 1


def test_order_is_by_word_pieces_not_characters(run):
  model = models.load(run["classifier"], precision="float32")
  # One long word out of the vocabulary is one piece ([UNK]); three short
  # words are three: characters would put the long word last.
  x = ["zzzzzzzzzzzzzzzzzzzzzzzz", "the cat sat", ("bob", "ann")]
  lengths = model.example_lengths(text_model.text_inputs.as_columns(
      text_model.text_inputs.check_examples(x, "x")))
  assert lengths.tolist() == [3, 5, 5]  # With [CLS] and [SEP]s.
  assert example_order.length_order(x, lengths) == [0, 1, 2]
  assert example_order.length_order(x) == [2, 1, 0]
  # Sliding windows: a text runs at the positions of all its windows.
  windowed = models.load(run["classifier"], precision="float32",
                         long_text="sliding_window", doc_stride=8)
  long_text = " ".join(WORDS * 5)  # 70 words: several windows of 32.
  x = [long_text, "the cat sat", "bob"]
  lengths = windowed.example_lengths(x)
  assert lengths[1:].tolist() == [5, 3] and lengths[0] > 70 + 2
  sorted_outputs = windowed.predict(x, batch_size=2, verbose=0)
  windowed.sort_by_length = False
  np.testing.assert_allclose(
      sorted_outputs, windowed.predict(x, batch_size=2, verbose=0),
      atol=1e-5)


def test_embedding_and_multiple_choice_keep_input_order(run):
  directory = run["pretrained"]
  encoder = models.load_predictor(directory, task="embedding",
                                  max_seq_length=32, precision="float32")
  x = [t for t in _mix(12, seed=1) if isinstance(t, str)]
  lengths = encoder.model.example_lengths(x)
  assert example_order.length_order(x, lengths) != list(range(len(x)))
  sorted_vectors = np.stack([r["embedding"]
                            for r in encoder.predict(x, batch_size=4)])
  encoder.model.sort_by_length = False
  vectors = np.stack([r["embedding"] for r in encoder.predict(x, batch_size=4)])
  np.testing.assert_allclose(sorted_vectors, vectors, atol=1e-5)
  # Multiple choice: an example runs at its longest choice (a 3-D mask).
  chooser = models.load_predictor(directory, task="multiple_choice",
                                  max_seq_length=32,
                                  precision="float32")
  contexts = [x[0], x[1], x[2], "bob"]
  choices = [["the cat", x[3]], ["dog", "mat"], [x[4], "ran"], ["a", "b"]]
  lengths = chooser.model.example_lengths((contexts, choices))
  assert lengths is not None and len(lengths) == 4
  assert example_order.length_order((contexts, choices), lengths) != [
      0, 1, 2, 3]
  ours = chooser.predict((contexts, choices), batch_size=2)
  chooser.model.sort_by_length = False
  theirs = chooser.predict((contexts, choices), batch_size=2)
  np.testing.assert_allclose([r["probabilities"] for r in ours],
                             [r["probabilities"] for r in theirs],
                             atol=1e-5)


def test_per_token_tasks_keep_input_order_unsorted(run):
  squad = models.load_predictor(run["pretrained"], task="squad",
                                max_seq_length=32, doc_stride=8,
                                max_query_length=6, precision="float32")
  # Windows run at max_seq_length: no trimmed batch to fill, no sort.
  assert not squad.model.trims_padding
  questions = ["who ran?", "the cat?", "where did angela merkel go?"]
  contexts = ["bob ran on the mat " * 3, "the cat sat", "angela merkel "
              "visited paris"]
  ours = squad.predict((questions, contexts))
  assert [r["answer"] for r in ours] == [
      squad.predict(([q], [c]))[0]["answer"]
      for q, c in zip(questions, contexts)]


if __name__ == "__main__":
  pytest.main([__file__])
