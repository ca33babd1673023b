"""Each processor on small files in its task's real layout."""

import os

import pytest

from bert_tf2.common import InputError
from bert_tf2.classifier import registry
from bert_tf2.classifier.features import convert_single_example
from bert_tf2.classifier.generic import GenericProcessor
from bert_tf2.classifier.processors import XnliProcessor
from tests.classifier import glue_fixtures


def _triples(examples):
  return [(e.text_a, e.text_b, e.label) for e in examples]


@pytest.mark.parametrize("task", ["sst-2", "qnli", "qqp", "rte", "wnli",
                                  "sts-b"])
def test_glue_layouts(tmp_path, task):
  dev, test = glue_fixtures.write_glue(task, str(tmp_path))
  proc = registry.get_processor(task)
  assert _triples(proc.get_dev_examples(str(tmp_path))) == dev
  assert _triples(proc.get_test_examples(str(tmp_path))) == test
  train = proc.get_train_examples(str(tmp_path))
  assert train and all(e.guid.startswith("train-") for e in train)
  assert proc.is_regression == (task == "sts-b")
  labels = proc.get_labels()
  assert all(e.label in labels or proc.is_regression for e in train)


def test_xnli_maps_contradictory_and_filters_language(tmp_path):
  glue_fixtures.write_xnli(str(tmp_path))
  proc = XnliProcessor()
  train = proc.get_train_examples(str(tmp_path))
  assert [e.label for e in train] == ["contradiction", "entailment", "neutral"]
  dev = proc.get_dev_examples(str(tmp_path))
  assert [e.guid for e in dev] == ["dev-2", "dev-3"]  # The "en" row is skipped.
  assert dev[0].text_a == glue_fixtures.PAIRS[3][0]


def test_cola_train_has_no_header(tmp_path):
  glue_fixtures.write_cola(str(tmp_path))
  proc = registry.get_processor("cola")
  train = proc.get_train_examples(str(tmp_path))
  assert len(train) == 3 and train[0].guid == "train-0"
  assert [e.label for e in train] == ["1", "0", "1"]
  test = proc.get_test_examples(str(tmp_path))
  assert [e.text_a for e in test] == ["Bill whistled past the house.",
                                      "The car honked its way."]


def test_short_row_names_file_and_line(tmp_path):
  glue_fixtures.write_mrpc(str(tmp_path))
  path = os.path.join(str(tmp_path), "train.tsv")
  with open(path, "a") as f:
    f.write("1\t123\tonly three columns\n")
  with pytest.raises(InputError, match=r"train\.tsv line 5: expected at least"
                     r" 4 columns"):
    registry.get_processor("mrpc").get_train_examples(str(tmp_path))


def test_unknown_label_names_file_and_line(tmp_path):
  glue_fixtures.write_mrpc(str(tmp_path))
  path = os.path.join(str(tmp_path), "dev.tsv")
  with open(path, "a") as f:
    f.write("yes\t1\t2\tA sentence .\tAnother .\n")
  proc = registry.get_processor("mrpc")
  examples = proc.get_dev_examples(str(tmp_path))

  class Tok(object):
    def tokenize(self, text):
      return text.split()

    def convert_tokens_to_ids(self, tokens):
      return [1] * len(tokens)

  with pytest.raises(InputError, match=r"dev\.tsv line 4: unknown label 'yes'"):
    for i, ex in enumerate(examples):
      convert_single_example(i, ex, proc.get_labels(), 16, Tok())


def test_bad_utf8_and_missing_file(tmp_path):
  path = os.path.join(str(tmp_path), "train.tsv")
  with open(path, "wb") as f:
    f.write(b"sentence\tlabel\nok\t1\nbad \xff\xfe bytes\t0\n")
  with pytest.raises(InputError, match=r"train\.tsv line 3: not valid UTF-8"):
    registry.get_processor("sst-2").get_train_examples(str(tmp_path))
  with pytest.raises(InputError, match=r"dev\.tsv: file not found"):
    registry.get_processor("sst-2").get_dev_examples(str(tmp_path))


def test_unknown_task():
  with pytest.raises(InputError, match="--task_name=nope: task not found"):
    registry.get_processor("nope")


def _write(path, text):
  with open(path, "w", encoding="utf-8", newline="") as f:
    f.write(text)


def test_generic_tsv_by_name_and_inferred_labels(tmp_path):
  d = str(tmp_path)
  _write(os.path.join(d, "train.tsv"), "id\tlabel\ttext\n1\tpos\tFun .\n"
         "2\tneg\tDull .\n3\tmid\tOkay .\n")
  _write(os.path.join(d, "test.tsv"), "id\ttext\n9\tWhat a ride .\n")
  proc = registry.get_processor("tsv", d, {"text_a_column": "text",
                                          "label_column": "label"})
  assert proc.get_labels() == ["mid", "neg", "pos"]
  assert _triples(proc.get_train_examples(d))[0] == ("Fun .", None, "pos")
  assert _triples(proc.get_test_examples(d)) == [("What a ride .", None, "mid")]


def test_generic_csv_pairs_quoting_and_label_list(tmp_path):
  d = str(tmp_path)
  _write(os.path.join(d, "train.csv"),
         'q1,q2,dup\n"Is it, really?","Yes, ""it"" is",1\nA,B,0\n')
  proc = registry.get_processor("csv", d, {
      "text_a_column": "0", "text_b_column": "1", "label_column": "2",
      "label_list": ["0", "1"]})
  assert _triples(proc.get_train_examples(d)) == [
      ("Is it, really?", 'Yes, "it" is', "1"), ("A", "B", "0")]


def test_generic_errors_name_file_and_line(tmp_path):
  d = str(tmp_path)
  _write(os.path.join(d, "train.tsv"), "label\ttext\npos\tFine .\nbad\tX\n")
  proc = GenericProcessor(d, text_a_column="text", label_column="label",
                          label_list=["neg", "pos"])
  with pytest.raises(InputError, match=r"train\.tsv line 3: unknown label "
                     r"'bad'"):
    proc.get_train_examples(d)
  _write(os.path.join(d, "dev.tsv"), "label\ttext\npos\t  \n")
  with pytest.raises(InputError, match=r"dev\.tsv line 2: text_a .* is empty"):
    proc.get_dev_examples(d)
  proc = GenericProcessor(d, text_a_column="sentence", label_column="label")
  with pytest.raises(InputError, match="--text_a_column=sentence: .* has no "
                     "such column"):
    proc.get_train_examples(d)
  with pytest.raises(InputError, match="--delimiter"):
    GenericProcessor(d, delimiter="ab")


def test_empty_train_file_is_named_as_empty_not_headerless(tmp_path):
  # Issue 38: an empty train.tsv was "a column name needs a header line".
  d = str(tmp_path)
  _write(os.path.join(d, "train.tsv"), "")
  for options in ({"text_a_column": "text", "label_column": "label"},
                  {"text_a_column": "1", "label_column": "0"}):
    proc = registry.get_processor("tsv", d, options)
    with pytest.raises(InputError) as e:
      proc.get_train_examples(d)
    assert str(e.value) == ("%s: the file is empty (expected a header line "
                            "and examples)" % os.path.join(d, "train.tsv"))


@pytest.mark.parametrize("multi", [False, True])
def test_empty_text_a_is_a_test_text_but_a_broken_train_row(tmp_path, multi):
  # Issue 45: --do_predict refused an empty test text the raw-string paths
  # answer; the original packs it as [CLS] [SEP]. Train/dev still refuse it.
  from bert_tf2.classifier.multi_label import MultiLabelProcessor
  d = str(tmp_path)
  _write(os.path.join(d, "train.tsv"), "label\ttext\npos\tFine .\n")
  _write(os.path.join(d, "test.tsv"), "label\ttext\npos\t\npos\tFine .\n")
  _write(os.path.join(d, "dev.tsv"), "label\ttext\npos\t \n")
  cls = MultiLabelProcessor if multi else GenericProcessor
  kwargs = {"multi_label_delimiter": "|"} if multi else {}
  proc = cls(d, text_a_column="text", label_column="label",
             label_list=["neg", "pos"], **kwargs)
  assert [e.text_a for e in proc.get_test_examples(d)] == ["", "Fine ."]
  with pytest.raises(InputError, match=r"dev\.tsv line 2: text_a .* empty"):
    proc.get_dev_examples(d)
