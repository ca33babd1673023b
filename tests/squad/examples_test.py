"""SQuAD reader and feature edge cases, and clear errors for bad files."""

import json

import pytest

from bert_tf2.common import InputError
from bert_tf2.squad import examples as squad_examples
from bert_tf2.squad import features as squad_features


def _write(tmp_path, obj, name="data.json"):
  path = tmp_path / name
  path.write_text(obj if isinstance(obj, str) else json.dumps(obj),
                  encoding="utf-8")
  return str(path)


def _squad(context, qas):
  return {"data": [{"paragraphs": [{"context": context, "qas": qas}]}]}


def test_whitespace_and_char_offsets():
  tokens, offsets = squad_examples.split_context(
      " a\tbc\u202fd\u00a0e\n\nf ")
  # U+202F separates words, U+00A0 does not (as the original).
  assert tokens == ["a", "bc", "d\u00a0e", "f"]
  assert offsets == [-1, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3]


def test_training_skips_unrecoverable_answers(tmp_path):
  data = _squad("Hello world, hi.", [
      {"id": "ok", "question": "q", "answers": [
          {"text": "world", "answer_start": 6}]},
      {"id": "bad", "question": "q", "answers": [
          {"text": "xyz", "answer_start": 6}]},
  ])
  path = _write(tmp_path, data)
  train = squad_examples.read_squad_examples(path, is_training=True)
  assert [e.qas_id for e in train] == ["ok"]
  assert (train[0].start_position, train[0].end_position) == (1, 1)
  predict = squad_examples.read_squad_examples(path, is_training=False)
  assert [e.qas_id for e in predict] == ["ok", "bad"]
  assert predict[0].start_position is None


@pytest.mark.parametrize("content,message", [
    ("{not json", "not valid JSON"),
    ({"nodata": []}, "no top-level 'data'"),
    ({"data": [{"paragraphs": [{"qas": []}]}]}, "has no 'context'"),
    (_squad("c", [{"id": "x", "answers": []}]), "has no 'question'"),
    (_squad("abc", [{"id": "x", "question": "q", "answers": [
        {"text": "a", "answer_start": 0}, {"text": "b", "answer_start": 1}]}]),
     "question 'x' has 2 answers"),
    (_squad("abc", [{"id": "x", "question": "q", "answers": [
        {"text": "abcdef", "answer_start": 1}]}]), "lies outside its context"),
])
def test_bad_files_raise_clear_errors(tmp_path, content, message):
  path = _write(tmp_path, content)
  with pytest.raises(InputError, match=message) as info:
    squad_examples.read_squad_examples(path, is_training=True)
  assert path in str(info.value)


@pytest.mark.parametrize("is_training", [True, False])
@pytest.mark.parametrize("second_id", ["q1", 1])
def test_duplicate_question_ids_are_refused(tmp_path, is_training,
                                            second_id):
  """Issue 46: predictions.json is keyed by id (a JSON key: 1 is "1"),
  so two questions "q1" lost one answer without a word."""
  first = "q1" if second_id == "q1" else "1"
  qa = lambda i: {"id": i, "question": "who?",
                  "answers": [{"text": "bob", "answer_start": 0}]}
  path = _write(tmp_path, _squad("bob met ann", [qa(first), qa(second_id)]))
  with pytest.raises(InputError) as info:
    squad_examples.read_squad_examples(path, is_training=is_training)
  assert str(info.value) == (
      "%s: question id %r is used twice (data[0].paragraphs[0].qas[0] and "
      "data[0].paragraphs[0].qas[1]); ids must be unique: predictions.json "
      "is keyed by id, one answer would be lost" % (path, second_id))


def test_missing_file(tmp_path):
  with pytest.raises(InputError, match="file not found"):
    squad_examples.read_squad_examples(str(tmp_path / "no.json"), False)


def test_v2_requires_is_impossible_in_training(tmp_path):
  path = _write(tmp_path, _squad("abc", [
      {"id": "x", "question": "q", "answers": []}]))
  with pytest.raises(InputError, match="'is_impossible'"):
    squad_examples.read_squad_examples(path, True,
                                       version_2_with_negative=True)


def test_doc_windows_are_the_originals_doc_spans():
  # The max-context rule: tests/tokenization/windows_test.py.
  assert squad_features.doc_windows(10, 4, 2) == [(0, 4), (2, 4), (4, 4),
                                                  (6, 4)]
  assert squad_features.doc_windows(0, 4, 2) == []  # No feature (run_squad).
  with pytest.raises(ValueError, match="no room for context tokens"):
    squad_features.doc_windows(10, 0, 2)
