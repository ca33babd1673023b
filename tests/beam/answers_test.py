"""A signature's outputs cut into JSON-able answers, one per input."""

import json

import numpy as np

from bert_tf2.beam import answers


def test_per_word_outputs_are_cut_to_each_inputs_words():
  out = answers.rows({
      "words": np.array([[b"a", b"b", b"c"], [b"x", b"", b""]], dtype=object),
      "tags": np.array([[b"O", b"B-PER", b"I-PER"], [b"O", b"", b""]],
                       dtype=object),
      "num_words": np.array([3, 1], np.int32)})
  assert out == [{"words": ["a", "b", "c"], "tags": ["O", "B-PER", "I-PER"],
                  "num_words": 3},
                 {"words": ["x"], "tags": ["O"], "num_words": 1}]
  json.dumps(out)  # Plain Python values.


def test_numbers_and_strings_become_python_values():
  out = answers.rows({"label": np.array([b"\xe6\xad\xa3"], dtype=object),
                      "logits": np.array([[0.5, -1.0]], np.float32),
                      "count": np.array([7], np.int64)})
  assert out == [{"label": "正", "logits": [0.5, -1.0], "count": 7}]
  assert type(out[0]["count"]) is int and type(out[0]["logits"][0]) is float
  # Without num_words, nothing is cut (the classifier's [batch, labels]).
  wide = answers.rows({"p": np.zeros([2, 3], np.float32)})
  assert wide == [{"p": [0.0] * 3}] * 2


def test_outputs_of_different_batch_sizes_are_refused():
  try:
    answers.rows({"a": np.zeros([2]), "b": np.zeros([3])})
  except ValueError as e:
    assert "different batch sizes" in str(e)
  else:
    raise AssertionError("no error")
