"""raw_answers: the answer forms users hold, one-line errors for bad ones."""

import pytest

from bert_tf2.common import InputError
from bert_tf2.squad.raw_answers import answer_columns
from bert_tf2.squad.raw_answers import gold_texts
from bert_tf2.squad.raw_answers import pair_columns


@pytest.mark.parametrize("answers,message", [
    ([{"text": "ann", "answer_start": 40}], "lies outside its context"),
    ([("ann",)], "an answer must be"),
    ([{"text": "ann", "answer_start": "0"}], "answer_start must be an int"),
    ([], "needs one answer per question"),
    ([{"text": "", "answer_start": 0}], "empty answer text"),
])
def test_bad_answers_are_one_line_errors(answers, message):
  with pytest.raises(InputError, match=message):
    answer_columns(["ann ran"], answers)


def test_answer_forms():
  contexts = ["ann ran", "bob sat", "cy"]
  starts, texts = answer_columns(contexts, [
      {"text": "ran", "answer_start": 4},
      {"text": ["sat", "bob sat"], "answer_start": [4, 0]},
      None])
  assert (starts, texts) == ([4, 4, -1], ["ran", "sat", ""])
  assert answer_columns(contexts[:1], [(0, "ann")]) == ([0], ["ann"])
  assert answer_columns(contexts[:1], [{"text": [], "answer_start": []}]) == (
      [-1], [""])


def test_pairs_and_gold_texts():
  assert pair_columns((("q1", "q2"), ["c1", "c2"])) == (["q1", "q2"],
                                                        ["c1", "c2"])
  with pytest.raises(InputError, match="2 questions but 1 contexts"):
    pair_columns((["q1", "q2"], ["c1"]))
  with pytest.raises(InputError, match=r"^x\[0\]: expected a \(question, "
                     r"context\) pair, got str 'q1'$"):
    pair_columns(["q1"])
  assert gold_texts({"text": ["a", "b"], "answer_start": [0, 2]}) == ["a", "b"]
  assert gold_texts((0, "a")) == ["a"] and gold_texts(None) == [""]
