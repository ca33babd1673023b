"""run_classifier.py as a user runs it: bad input -> one error line, exit 1."""

import os

from tests.reliability import fixtures


def _train_on_tsv(tmp_path, train_tsv, **flags):
  """Runs run_classifier.py --do_train on one train.tsv; returns the
  process (output_dir tmp_path/out)."""
  data = tmp_path / "data"
  data.mkdir()
  (data / "train.tsv").write_text(train_tsv)
  vocab, config = fixtures.tiny_model_files(tmp_path, ["good", "fun", "meh"])
  return fixtures.run_script("run_classifier.py", fixtures.flag_args(
      task_name="TSV", data_dir=data, vocab_file=vocab,
      bert_config_file=config, output_dir=tmp_path / "out", do_train="true",
      text_a_column="text", label_column="label", max_seq_length=16,
      **flags))


def test_cli_reports_bad_label_file_and_line(tmp_path):
  proc = _train_on_tsv(tmp_path, "label\ttext\npos\tgood fun\nnope\tmeh\n",
                       label_list="neg,pos")
  assert fixtures.error_line(proc) == (
      "error: %s line 3: unknown label 'nope'; --label_list is neg,pos"
      % (tmp_path / "data" / "train.tsv"))
  assert not os.path.exists(tmp_path / "out" / "train.tf_record")


def test_cli_refuses_classification_with_one_label(tmp_path):
  # One class is no classification (a softmax over one logit always says
  # it); num_labels 1 is the model's regression, so it is refused up front.
  proc = _train_on_tsv(tmp_path, "label\ttext\npos\tgood fun\npos\tmeh\n")
  assert fixtures.error_line(proc) == (
      "error: --task_name=TSV: 1 label (pos); classification needs at least "
      "two")
  assert not os.path.exists(tmp_path / "out" / "train.tf_record")
