"""Multiple-choice readers: SWAG CSV, generic JSONL, and their bad inputs."""

import json

import pytest

from bert_tf2.common import InputError
from bert_tf2.multiple_choice import reader

SWAG_HEADER = ("video-id,fold-ind,startphrase,sent1,sent2,gold-source,"
               "ending0,ending1,ending2,ending3,label")


def _write(tmp_path, name, text):
  path = tmp_path / name
  path.write_text(text, encoding="utf-8")
  return str(path)


def test_swag_row_pairs_sent1_with_sent2_plus_each_ending(tmp_path):
  path = _write(tmp_path, "train.csv", SWAG_HEADER + "\n" +
                'v1,7,"She opens the door. She",She opens the door.,She,gold,'
                "walks out.,eats a car.,sings.,flies,2\n")
  (ex,) = reader.read_swag_csv(path)
  assert ex.context == "She opens the door."
  assert ex.choices == ["She walks out.", "She eats a car.", "She sings.",
                        "She flies"]
  assert ex.label == 2 and ex.guid == "7"


def test_swag_test_file_without_labels(tmp_path):
  header = SWAG_HEADER.rsplit(",", 1)[0]
  path = _write(tmp_path, "test.csv", header + "\nv,0,s,a,b,g,w,x,y,z\n")
  assert reader.read_swag_csv(path)[0].label is None
  with pytest.raises(InputError, match=r"test.csv: row 1: no label"):
    reader.read_swag_csv(path, require_labels=True)


@pytest.mark.parametrize("row, message", [
    ("v,0,s,a,b,g,w,,y,z,0", r"row 2: ending1 is empty"),
    ("v,0,s,a,b,g,w,x,y,z,4", r"row 2: label 4 is outside the 4 choices"),
    ("v,0,s,a,b,g,w,x,y,z,one", r"row 2: label 'one' is not a choice index"),
])
def test_swag_bad_rows_name_file_and_row(tmp_path, row, message):
  good = "v,0,s,a,b,g,w,x,y,z,1"
  path = _write(tmp_path, "dev.csv", "\n".join([SWAG_HEADER, good, row]))
  with pytest.raises(InputError, match="dev.csv: " + message):
    reader.read_swag_csv(path)


def test_swag_missing_column(tmp_path):
  path = _write(tmp_path, "x.csv", "sent1,sent2,ending0\na,b,c\n")
  with pytest.raises(InputError, match="x.csv: not a SWAG CSV file: no "
                     "column ending1"):
    reader.read_swag_csv(path)


def _jsonl(tmp_path, objects):
  return _write(tmp_path, "d.jsonl",
                "\n".join(json.dumps(o) for o in objects) + "\n")


def test_jsonl_any_number_of_choices_and_question(tmp_path):
  path = _jsonl(tmp_path, [
      {"context": "c1", "question": "q?", "choices": ["a", "b", "c"],
       "label": 1},
      {"context": "c2", "choices": ["a", "b"]}])
  first, second = reader.read_examples(path)
  assert (first.question, first.choices, first.label) == ("q?",
                                                          ["a", "b", "c"], 1)
  assert second.question is None and second.label is None


@pytest.mark.parametrize("obj, message", [
    ({"context": "c", "choices": ["a"], "label": 0}, "at least 2"),
    ({"context": "c", "choices": ["a", ""], "label": 0}, "choice 1 is empty"),
    ({"context": "c", "choices": ["a", "b"], "label": 2},
     "label 2 is outside the 2 choices"),
    ({"context": "c", "choices": ["a", "b"], "label": -1},
     "label -1 is outside"),
    ({"choices": ["a", "b"], "label": 0}, "no \"context\""),
])
def test_jsonl_bad_lines_name_file_and_line(tmp_path, obj, message):
  good = {"context": "c", "choices": ["a", "b"], "label": 0}
  path = _jsonl(tmp_path, [good, obj])
  with pytest.raises(InputError, match=r"d.jsonl: line 2: .*" + message):
    reader.read_jsonl(path)


def test_jsonl_not_json(tmp_path):
  path = _write(tmp_path, "d.jsonl", '{"context": "c",\n')
  with pytest.raises(InputError, match=r"d.jsonl: line 1: not JSON"):
    reader.read_jsonl(path)


def test_uneven_choices_are_refused_naming_the_row(tmp_path):
  path = _jsonl(tmp_path, [
      {"context": "c", "choices": ["a", "b"], "label": 0},
      {"context": "c", "choices": ["a", "b", "c"], "label": 0}])
  examples = reader.read_jsonl(path)
  with pytest.raises(InputError, match=r"d.jsonl: line 2: 3 choices where "
                     r"the others have 2"):
    reader.check_num_choices(examples)
  assert reader.check_num_choices(examples[:1]) == 2


def test_missing_file():
  with pytest.raises(InputError, match="/no/such.jsonl: file not found"):
    reader.read_examples("/no/such.jsonl")
