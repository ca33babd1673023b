"""run_ner.py as a user runs it: bad input -> one error line, exit 1."""

import os

from tests.reliability import fixtures


def test_cli_reports_tagless_line_with_file_and_line(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  (data / "train.txt").write_text("北 B-LOC\n京 I-LOC\n\n好\n")
  vocab, config = fixtures.tiny_model_files(tmp_path, ["北", "京", "好"])
  proc = fixtures.run_script("run_ner.py", fixtures.flag_args(
      data_dir=data, vocab_file=vocab, bert_config_file=config,
      output_dir=tmp_path / "out", do_train="true", max_seq_length=16,
      doc_stride=8))
  assert fixtures.error_line(proc) == (
      "error: %s:4: '好' has no tag (expected 'token tag')"
      % (data / "train.txt"))
  assert not os.path.exists(tmp_path / "out" / "train.tf_record")


def test_unknown_dev_and_test_tags_are_refused_before_any_file(tmp_path):
  """Issue 46: a dev tag missing from the training labels was refused only
  after label_list.txt and train.tf_record were written."""
  data = tmp_path / "data"
  data.mkdir()
  (data / "train.txt").write_text("北 B-LOC\n京 I-LOC\n\n好 O\n")
  (data / "dev.txt").write_text("北 B-LOC\n好 B-PER\n")
  (data / "test.txt").write_text("好 O\n京 I-PER\n")
  vocab, config = fixtures.tiny_model_files(tmp_path, ["北", "京", "好"])
  for split, line, tag in (("eval", 2, "B-PER"), ("predict", 2, "I-PER")):
    out = tmp_path / ("out_" + split)
    proc = fixtures.run_in_process("run_ner.py", fixtures.flag_args(
        data_dir=data, vocab_file=vocab, bert_config_file=config,
        output_dir=out, do_train="true", max_seq_length=16, doc_stride=8,
        train_batch_size=1, **{"do_" + split: "true"}))
    name = "dev.txt" if split == "eval" else "test.txt"
    assert fixtures.error_line(proc).startswith(
        "error: %s:%d: tag %r is not in the label list"
        % (data / name, line, tag))
    assert not os.path.exists(out) or not os.listdir(out), os.listdir(out)
