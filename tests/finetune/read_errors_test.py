"""A fine-tuning run whose own record files go bad mid-run names the file
and the record (issue 38 item 5), as run_pretraining does for
--input_file: no more "error: DataLossError: Graph execution error:"."""

import os

import pytest
import tensorflow as tf

from bert_tf2.classifier import job as classifier_job
from bert_tf2.common import InputError
from bert_tf2.finetune import records
from tests.reliability import fixtures


def _write(path, n=6):
  return records.write_records(path, [
      {"input_ids": [i, 1, 0], "input_mask": [1, 1, 0], "label_ids": [i % 2]}
      for i in range(n)])


def _read_all(path):
  spec = records.sequence_spec(3, ("input_ids", "input_mask"),
                               {"label_ids": tf.int64})
  for _ in records.input_fn(path, spec, 3, training=False)(
      {"batch_size": 2}):
    pass


def _truncate(path):
  size = os.path.getsize(path)
  with open(path, "r+b") as f:
    f.truncate(size - 5)  # Inside the last record's data.


def test_truncated_records_are_named_with_file_and_record(tmp_path):
  path = str(tmp_path / "train.tf_record")
  _write(path)
  _truncate(path)
  with pytest.raises(InputError) as e:
    with records.explain_read_errors([path]):
      _read_all(path)
  assert str(e.value).startswith(
      "%s: record 5 is truncated or corrupt (" % path), e.value


def test_corrupt_record_is_named(tmp_path):
  path = str(tmp_path / "train.tf_record")
  _write(path)
  with open(path, "r+b") as f:  # A byte of record 0's data: bad CRC.
    f.seek(20)
    byte = f.read(1)
    f.seek(20)
    f.write(bytes([byte[0] ^ 0xFF]))
  with pytest.raises(InputError, match=r"train.tf_record: record 0 is "
                     r"truncated or corrupt"):
    with records.explain_read_errors([path]):
      _read_all(path)


def test_deleted_record_file_is_named(tmp_path):
  path = str(tmp_path / "eval.tf_record")
  _write(path)
  os.remove(path)
  with pytest.raises(InputError) as e:
    with records.explain_read_errors([path]):
      _read_all(path)
  assert str(e.value) == (
      "%s: removed while the run was reading it (NotFoundError); the run "
      "writes it at its start: rerun" % path)


def test_an_error_the_records_do_not_explain_propagates(tmp_path):
  path = str(tmp_path / "train.tf_record")
  _write(path)
  with pytest.raises(tf.errors.DataLossError):
    with records.explain_read_errors([path]):
      raise tf.errors.DataLossError(None, None, "a damaged checkpoint")


@pytest.mark.slow
def test_run_classifier_names_the_record_broken_mid_run(tmp_path,
                                                        monkeypatch):
  p = fixtures.make_inputs(tmp_path)
  write = classifier_job.features_lib.file_based_convert_examples_to_features

  def write_then_damage(examples, label_list, seq, tokenizer, path):
    count = write(examples, label_list, seq, tokenizer, path)
    _truncate(path)  # As a disk fault after the records were written.
    return count
  monkeypatch.setattr(classifier_job.features_lib,
                      "file_based_convert_examples_to_features",
                      write_then_damage)
  out = str(tmp_path / "out")
  result = fixtures.run_in_process("run_classifier.py", fixtures.flag_args(
      task_name="cola", do_train="true", data_dir=p["glue"],
      vocab_file=p["vocab"], bert_config_file=p["config"], output_dir=out,
      max_seq_length=16, train_batch_size=2, num_train_epochs=1.0))
  line = fixtures.error_line(result)
  assert line.startswith("error: %s: record 7 is truncated or corrupt (" %
                         os.path.join(out, "train.tf_record")), line
