"""Tests of the pretraining input pipeline and the record checks."""

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.pretraining import input_pipeline
from bert_tf2.pretraining import record_check
from tests.pretraining import records

SEQ, PRED = 16, 4


def _take(dataset, n):
  return [{k: v.numpy() for k, v in b.items()} for b in dataset.take(n)]


def test_eval_batches_keep_file_order_dtypes_and_values(tmp_path):
  path = tmp_path / "a.tfrecord"
  written = records.write_records(path, 10, SEQ, PRED)
  input_fn = input_pipeline.input_fn_builder([str(path)], SEQ, PRED,
                                             is_training=False)
  batches = _take(input_fn({"batch_size": 4}), 3)
  # 10 records, repeated: batches are records 0-3, 4-7, 8,9,0,1.
  order = list(range(10)) + list(range(10))
  for b, batch in enumerate(batches):
    assert batch["input_ids"].dtype == np.int32
    assert batch["masked_lm_weights"].dtype == np.float32
    assert batch["next_sentence_labels"].shape == (4, 1)
    assert batch["input_ids"].shape == (4, SEQ)
    assert batch["masked_lm_positions"].shape == (4, PRED)
    for row in range(4):
      want = written[order[4 * b + row]]
      for name, values in want.items():
        np.testing.assert_array_equal(batch[name][row], values)


def test_training_reads_every_file_shuffled_with_full_batches(tmp_path):
  files, seen = [], set()
  for i in range(3):
    path = tmp_path / ("part-%d.tfrecord" % i)
    for inst in records.write_records(path, 7, SEQ, PRED, seed=i):
      seen.add(tuple(inst["input_ids"]))
    files.append(str(path))
  # Seeded so that the test is repeatable; the default (sloppy) order is
  # covered by the end-to-end tests.
  input_fn = input_pipeline.input_fn_builder(
      files, SEQ, PRED, is_training=True, deterministic=True, seed=1)
  batches = _take(input_fn({"batch_size": 5}), 40)
  got = set()
  for batch in batches:
    assert batch["input_ids"].shape == (5, SEQ)
    got.update(tuple(row) for row in batch["input_ids"])
  assert got == seen


def test_training_order_is_reproducible_when_deterministic(tmp_path):
  files = []
  for i in range(2):
    path = tmp_path / ("p%d.tfrecord" % i)
    records.write_records(path, 9, SEQ, PRED, seed=10 + i)
    files.append(str(path))

  def order():
    input_fn = input_pipeline.input_fn_builder(
        files, SEQ, PRED, is_training=True, deterministic=True, seed=7)
    return np.concatenate([b["input_ids"] for b in
                           _take(input_fn({"batch_size": 3}), 6)])

  np.testing.assert_array_equal(order(), order())


def test_first_record_check_names_file_record_feature_and_lengths(tmp_path):
  path = tmp_path / "short.tfrecord"
  records.write_records(path, 3, seq_length=16, max_pred=4)
  record_check.check_first_records([str(path)], 16, 4)
  with pytest.raises(InputError) as e:
    record_check.check_first_records([str(path)], 128, 4)
  msg = str(e.value)
  assert str(path) in msg and "record 0" in msg and "'input_ids'" in msg
  assert "has 16 values, expected 128" in msg and "--max_seq_length" in msg
  with pytest.raises(InputError, match=r"'masked_lm_positions' has 4 values, "
                     r"expected 20 \(--max_predictions_per_seq=20\)"):
    record_check.check_first_records([str(path)], 16, 20)


def _bad_length_at(index):
  def edit(i, instance):
    if i == index:
      instance["masked_lm_ids"] = instance["masked_lm_ids"][:-1]
  return edit


def test_pipeline_failure_is_explained_with_record_index(tmp_path):
  good = tmp_path / "good.tfrecord"
  bad = tmp_path / "bad.tfrecord"
  records.write_records(good, 4, SEQ, PRED)
  records.write_records(bad, 8, SEQ, PRED, edit=_bad_length_at(5))
  files = [str(good), str(bad)]
  record_check.check_first_records(files, SEQ, PRED)  # record 0 is fine
  input_fn = input_pipeline.input_fn_builder(files, SEQ, PRED,
                                             is_training=False)
  with pytest.raises(InputError) as e:
    with record_check.explain_input_errors(files, SEQ, PRED):
      _take(input_fn({"batch_size": 4}), 5)
  msg = str(e.value)
  assert "%s: record 5: feature 'masked_lm_ids' has 3 values, expected 4" % (
      bad) in msg


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_truncated_or_corrupt_file_names_file_and_record(tmp_path, damage):
  path = tmp_path / "damaged.tfrecord"
  records.write_records(path, 6, SEQ, PRED)
  data = bytearray(path.read_bytes())
  offsets = records.record_offsets(str(path))
  if damage == "truncate":
    data = data[:offsets[4] + 20]  # record 4 is cut in the middle
    want = 4
  else:
    data[offsets[3] + 30] ^= 0xFF  # a byte inside record 3's payload
    want = 3
  path.write_bytes(bytes(data))
  with pytest.raises(InputError) as e:
    record_check.find_bad_record([str(path)], SEQ, PRED)
  msg = str(e.value)
  assert "%s: record %d is truncated or corrupt" % (path, want) in msg
  # The same error when the failure happens inside the training pipeline.
  input_fn = input_pipeline.input_fn_builder([str(path)], SEQ, PRED,
                                             is_training=True)
  with pytest.raises(InputError, match="record %d is truncated" % want):
    with record_check.explain_input_errors([str(path)], SEQ, PRED):
      _take(input_fn({"batch_size": 2}), 10)


def test_file_ending_inside_a_record_header_is_found_by_the_scan(tmp_path):
  # tf.data reads such a file as if it ended one record earlier; the full
  # scan compares the records' sizes with the file's.
  path = tmp_path / "cut.tfrecord"
  records.write_records(path, 5, SEQ, PRED)
  offsets = records.record_offsets(str(path))
  path.write_bytes(path.read_bytes()[:offsets[3] + 7])
  with pytest.raises(InputError, match=r"cut.tfrecord: record 3 is truncated "
                     r"or corrupt \(the file ends 7 bytes into it\)"):
    record_check.find_bad_record([str(path)], SEQ, PRED)
  assert record_check.check_record_file(str(path), SEQ, PRED, limit=3) == 3


def test_files_without_records_are_an_input_error(tmp_path):
  path = tmp_path / "empty.tfrecord"
  with tf.io.TFRecordWriter(str(path)):
    pass
  with pytest.raises(InputError, match="no records in any of the 1 input"):
    record_check.check_first_records([str(path)], SEQ, PRED)


def test_not_a_tfrecord_file_is_an_input_error(tmp_path):
  path = tmp_path / "text.tfrecord"
  path.write_text("this is a text file, not TFRecords\n" * 3)
  with pytest.raises(InputError, match="text.tfrecord: record 0 is truncated "
                     "or corrupt"):
    record_check.check_first_records([str(path)], SEQ, PRED)


def test_token_ids_outside_the_vocabulary_are_reported(tmp_path):
  path = tmp_path / "ids.tfrecord"

  def edit(i, instance):
    if i == 2:
      instance["input_ids"][1] = 5000
  records.write_records(path, 4, SEQ, PRED, edit=edit)
  limits = record_check.value_limits(SEQ, vocab_size=1000, type_vocab_size=2)
  record_check.check_first_records([str(path)], SEQ, PRED, limits)
  with pytest.raises(InputError, match=r"record 2: feature 'input_ids' has "
                     r"value 5000, outside \[0, 1000\)"):
    record_check.find_bad_record([str(path)], SEQ, PRED, limits)
