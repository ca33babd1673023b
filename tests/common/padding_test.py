"""common.padding: bucket lengths, the trimmed length, the dataset map."""

import numpy as np
import tensorflow as tf

from bert_tf2.common import padding


def test_bucket_lengths():
  assert padding.bucket_lengths(128) == [16, 32, 48, 64, 80, 96, 112, 128]
  assert padding.bucket_lengths(384) == [16, 32, 48, 64, 80, 96, 112, 128,
                                         160, 192, 224, 256, 320, 384]
  assert len(padding.bucket_lengths(512)) == 16
  assert padding.bucket_lengths(40) == [16, 32, 40]
  assert padding.bucket_lengths(10) == [10]
  assert padding.bucket_lengths(128, fine=True) == list(range(8, 129, 8))
  assert padding.bucket_lengths(30, fine=True) == [8, 16, 24, 30]


def test_round_up_length():
  buckets = padding.bucket_lengths(40)
  assert [padding.round_up_length(n, buckets) for n in (0, 1, 16, 17, 33,
                                                          40, 99)] == [
                                                              16, 16, 16, 32,
                                                              40, 40, 40]


def test_trimmed_length_uses_the_last_set_position_of_any_row():
  buckets = padding.bucket_lengths(64)
  for lengths, want in (([3, 17], 32), ([0, 0], 16), ([64], 64),
                        ([16, 1], 16), ([49], 64)):
    mask = np.zeros([len(lengths), 64], np.int32)
    for row, n in enumerate(lengths):
      mask[row, :n] = 1
    assert int(padding.trimmed_length(tf.constant(mask), buckets)) == want
    assert int(padding.longest_length(tf.constant(mask))) == max(lengths)
  # A hole in the mask does not hide a later real position.
  mask = np.zeros([1, 64], np.int32)
  mask[0, 40] = 1
  assert int(padding.trimmed_length(tf.constant(mask), buckets)) == 48


def test_trim_batch_padding_slices_only_sequence_features():
  rng = np.random.RandomState(0)
  lengths = rng.randint(1, 30, size=20)
  mask = (np.arange(48)[None] < lengths[:, None]).astype(np.int32)
  ids = rng.randint(1, 100, size=[20, 48]).astype(np.int32) * mask
  data = tf.data.Dataset.from_tensor_slices(
      {"input_ids": ids, "input_mask": mask, "label_ids": lengths,
       "positions": np.zeros([20, 5], np.int32)}).batch(6)
  trimmed = padding.trim_batch_padding(data, 48)
  assert trimmed.element_spec["input_ids"].shape.as_list() == [None, None]
  assert trimmed.element_spec["positions"].shape.as_list() == [None, 5]
  begin = 0
  for batch in trimmed:
    n = len(batch["label_ids"])
    want = padding.round_up_length(max(lengths[begin:begin + n]),
                                   padding.bucket_lengths(48))
    assert batch["input_ids"].shape.as_list() == [n, want]
    np.testing.assert_array_equal(batch["input_ids"],
                                  ids[begin:begin + n, :want])
    np.testing.assert_array_equal(batch["label_ids"],
                                  lengths[begin:begin + n])
    assert batch["positions"].shape.as_list() == [n, 5]
    begin += n
  assert begin == 20


def test_trim_to_longest_is_exact_and_keeps_other_features():
  # Multiple choice's 3-D mask: the longest over every choice of every row.
  mask = np.zeros([2, 3, 16], np.int32)
  mask[0, 1, :5] = 1
  mask[1, 2, :11] = 1
  ids = np.arange(2 * 3 * 16, dtype=np.int32).reshape([2, 3, 16])
  features = {"input_ids": tf.constant(ids), "input_mask": tf.constant(mask),
              "labels": tf.constant([[1] * 16, [0] * 16]),  # [2, 16]
              "positions": tf.zeros([2, 3, 4], tf.int32)}
  out = padding.trim_to_longest(features, 16)
  assert out["input_ids"].shape.as_list() == [2, 3, 11]  # Not 16, not 12.
  np.testing.assert_array_equal(out["input_ids"], ids[..., :11])
  assert out["labels"].shape.as_list() == [2, 11]
  assert out["positions"].shape.as_list() == [2, 3, 4]
  # Without seq_length, every feature of rank >= 2 is a sequence.
  assert padding.trim_to_longest(features)["positions"].shape[-1] == 4
  # An all-padding batch keeps [CLS] [SEP]'s 2 positions.
  empty = {"input_mask": tf.zeros([2, 16], tf.int32)}
  assert padding.trim_to_longest(empty, 16)["input_mask"].shape[-1] == 2
