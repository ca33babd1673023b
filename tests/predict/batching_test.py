"""batching.run_batches: trimmed batches of similar lengths, input order kept."""

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.predict import batching


def _arrays(lengths, max_len=32):
  mask = (np.arange(max_len)[None, :] < np.array(lengths)[:, None])
  ids = np.where(mask, np.arange(1, len(lengths) + 1)[:, None], 0)
  return [ids.astype(np.int32), mask.astype(np.int32),
          np.zeros_like(ids, np.int32)]


def _recording_fn(seen):
  def fn(ids, mask, segments):
    del segments
    seen.append((ids.shape[1], sorted(set(ids[:, 0].numpy().tolist()))))
    # Per row: its id, its length and a [batch, seq] sequence output.
    return (ids[:, 0], tf.reduce_sum(mask, 1), tf.cast(mask, tf.float32))
  return fn


@pytest.mark.parametrize("sort_by_length", [None, True, False])
def test_outputs_come_back_in_input_order(sort_by_length):
  lengths = [30, 3, 17, 2, 29, 5, 16, 4]
  seen = []
  ids, lens, masks = batching.run_batches(
      _recording_fn(seen), _arrays(lengths), batch_size=2,
      trim_padding=True, sequence_outputs=(2,), sort_by_length=sort_by_length)
  assert ids.tolist() == list(range(1, 9))
  assert lens.tolist() == lengths
  np.testing.assert_array_equal(masks, _arrays(lengths)[1])
  if sort_by_length is False:
    # Input order: every batch holds a long text.
    assert [rows for _, rows in seen] == [[1, 2], [3, 4], [5, 6], [7, 8]]
    assert [width for width, _ in seen] == [32, 24, 32, 16]
  else:
    # Shortest first: (2, 3), (4, 5), (16, 17), (29, 30) word pieces.
    assert [rows for _, rows in seen] == [[2, 4], [6, 8], [3, 7], [1, 5]]
    assert [width for width, _ in seen] == [8, 8, 24, 32]


def test_fixed_padding_keeps_input_order_and_width():
  seen = []
  ids, _, _ = batching.run_batches(_recording_fn(seen), _arrays([9, 1, 5]),
                                   batch_size=2)
  assert ids.tolist() == [1, 2, 3]
  assert seen == [(32, [1, 2]), (32, [3])]
