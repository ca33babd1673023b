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
