"""CoNLL reading and its bad-input errors (file and line named)."""

import pytest

from bert_tf2.common import InputError
from bert_tf2.ner import reader


def _write(tmp_path, text, name="train.txt"):
  path = tmp_path / name
  path.write_text(text, encoding="utf-8")
  return str(path)


def test_reads_sentences_middle_columns_and_docstart(tmp_path):
  path = _write(tmp_path, "-DOCSTART- -X- O O\n\nEU NNP B-NP B-ORG\n"
                "rejects VBZ B-VP O\n\n\nPeter NNP B-NP B-PER\n")
  sentences = reader.read_conll(path)
  assert [s.tokens for s in sentences] == [["EU", "rejects"], ["Peter"]]
  assert [s.tags for s in sentences] == [["B-ORG", "O"], ["B-PER"]]
  assert [s.line for s in sentences] == [3, 7]
  assert reader.labels_from_sentences(sentences, path) == [
      "O", "B-ORG", "B-PER"]


def test_line_without_tag_names_file_and_line(tmp_path):
  path = _write(tmp_path, "a O\nb\n")
  with pytest.raises(InputError, match=r"train.txt:2: 'b' has no tag"):
    reader.read_conll(path)
  # Files to predict on may hold tokens only.
  assert reader.read_conll(path, require_tags=False)[0].tags == ["O", None]


@pytest.mark.parametrize("tag", ["U-PER", "PER", "B_PER", "L-LOC", "B-"])
def test_unknown_scheme_names_file_and_line(tmp_path, tag):
  path = _write(tmp_path, "a O\n\nb %s\n" % tag)
  with pytest.raises(InputError, match=r"train.txt:3: tag .*unknown tag "
                     r"scheme"):
    reader.read_conll(path)


def test_training_file_of_only_o_is_an_error(tmp_path):
  path = _write(tmp_path, "a O\nb O\n\nc O\n")
  with pytest.raises(InputError, match="every sentence is only O"):
    reader.labels_from_sentences(reader.read_conll(path), path)


def test_tag_outside_label_list_names_line(tmp_path):
  path = _write(tmp_path, "a O\n\nb O\nc B-MISC\n", "dev.txt")
  with pytest.raises(InputError, match=r"dev.txt:4: tag 'B-MISC' is not "
                     r"in the label list"):
    reader.check_known_tags(reader.read_conll(path), ["O", "B-PER"], path)


def test_labels_file(tmp_path):
  path = _write(tmp_path, "B-PER\nO\nI-PER\n", "labels.txt")
  assert reader.read_labels_file(path) == ["O", "B-PER", "I-PER"]
  bad = _write(tmp_path, "B-PER\nX\n", "bad.txt")
  with pytest.raises(InputError, match=r"bad.txt:2"):
    reader.read_labels_file(bad)


def test_invalid_utf8_names_line(tmp_path):
  path = tmp_path / "train.txt"
  path.write_bytes(b"a O\n\xff O\n")
  with pytest.raises(InputError, match=r"train.txt:2: not valid UTF-8"):
    reader.read_conll(str(path))
