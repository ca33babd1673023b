"""Per-batch padding trimming: run each batch at the length it needs.

Records keep the original's fixed [max_seq_length] format. After batching,
every [batch, max_seq_length] feature is cut to the batch's longest
sequence, rounded up to one of a few bucket lengths so that compiled shapes
stay few. Padding is masked out of attention, so the outputs at real
positions, the pooled output and the losses equal the padded run's to
float32 round-off.

Example:
  >>> import tensorflow as tf
  >>> bucket_lengths(128)
  [16, 32, 48, 64, 80, 96, 112, 128]
  >>> bucket_lengths(40, fine=True)
  [8, 16, 24, 32, 40]
  >>> mask = tf.constant([[1, 1, 1] + [0] * 125, [1] * 20 + [0] * 108])
  >>> int(trimmed_length(mask, bucket_lengths(128)))
  32
  >>> out = trim_features({"input_ids": mask, "input_mask": mask,
  ...                      "label_ids": tf.constant([0, 1])}, 128)
  >>> out["input_ids"].shape.as_list(), out["label_ids"].shape.as_list()
  ([2, 32], [2])
"""

import numpy as np


def bucket_lengths(max_seq_length, fine=False):
  """The lengths a trimmed batch may have, ascending, ending at the max.

  Coarse (for XLA, which compiles once per length): multiples of 16 up to
  128, of 32 up to 256, of 64 beyond. Fine (for uncompiled runs):
  multiples of 8. Both end with `max_seq_length` itself.
  """
  max_seq_length = int(max_seq_length)
  lengths = set()
  steps = ((8, max_seq_length),) if fine else (
      (16, 128), (32, 256), (64, max_seq_length))
  for step, limit in steps:
    lengths.update(range(step, min(limit, max_seq_length) + 1, step))
  lengths = sorted(x for x in lengths if x < max_seq_length)
  return lengths + [max_seq_length]


def round_up_length(length, buckets):
  """The smallest bucket >= `length` (numpy ints; the last bucket caps)."""
  index = int(np.searchsorted(np.asarray(buckets), int(length), side="left"))
  return int(buckets[min(index, len(buckets) - 1)])


def longest_length(input_mask):
  """int32 scalar Tensor: 1 + the last position where any of
  `input_mask` (int [batch_size, seq_length]) is set (0 for none)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  used = tf.reduce_any(tf.not_equal(input_mask, 0), axis=0)
  positions = tf.range(1, tf.shape(used)[0] + 1)
  return tf.reduce_max(tf.where(used, positions, 0))


def trim_to_longest(features, seq_length=None):
  """Cuts the sequence features to the longest real sequence exactly (a
  Tensor length: no retrace; XLA uses `trim_features`' buckets), at least
  2 (the [CLS] [SEP] of an empty text).

  Args:
    features: dict of Tensors; features["input_mask"] is int
      [..., seq_length] (multiple choice's is [batch_size, num_choices,
      seq_length]).
    seq_length: int, the static length of the sequence features (the
      others are kept as they are); None: every feature of rank >= 2 is
      one.

  Returns:
    dict like `features`; sequence features end in a None axis.
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  mask = features["input_mask"]
  length = tf.maximum(
      longest_length(tf.reshape(mask, [-1, tf.shape(mask)[-1]])), 2)
  def is_sequence(value):
    rank = value.shape.rank
    return bool(rank and rank >= 2 and (seq_length is None or
                                        value.shape[-1] == seq_length))
  return {k: v[..., :length] if is_sequence(v) else v
          for k, v in features.items()}


def row_lengths(features):
  """(int32 Tensor [rows]: each row's real positions, its longest choice
  for multiple choice's [rows, num_choices, seq_length] mask; the rows'
  example indexes: features["window_example"] for sliding windows, else
  an empty Tensor). `example_lengths` sums them per example.
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  mask = tf.cast(features["input_mask"], tf.int32)
  per_row = tf.reduce_max(tf.reduce_sum(
      tf.reshape(mask, [tf.shape(mask)[0], -1, tf.shape(mask)[-1]]), -1), -1)
  return per_row, features.get("window_example", tf.zeros([0], tf.int32))


def example_lengths(per_row, window_example, num_examples):
  """int NumPy array [num_examples]: each example's real positions, from
  `row_lengths` (NumPy): a row per example, or the sum over each
  example's windows; None where the rows map to no examples.

  >>> example_lengths(np.array([5, 9]), np.zeros([0]), 2).tolist()
  [5, 9]
  >>> example_lengths(np.array([32, 20, 7]), np.array([0, 0, 1]), 2).tolist()
  [52, 7]
  >>> example_lengths(np.array([5, 9, 3]), np.zeros([0]), 2) is None
  True
  """
  per_row = np.asarray(per_row, np.int64)
  if len(window_example):
    return np.bincount(np.asarray(window_example), weights=per_row,
                       minlength=num_examples).astype(np.int64)
  return per_row if len(per_row) == num_examples else None


def trimmed_length(input_mask, buckets):
  """int32 scalar Tensor: the bucket of `buckets` (ascending, the last
  seq_length) holding every real position of `input_mask`."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  longest = longest_length(input_mask)
  table = tf.constant(buckets, tf.int32)
  index = tf.searchsorted(table, tf.reshape(longest, [1]), side="left")[0]
  return table[tf.minimum(index, len(buckets) - 1)]


def trim_features(features, max_seq_length, buckets=None):
  """Cuts every [batch, max_seq_length] Tensor of `features` to the bucket.

  Args:
    features: dict of Tensors, one batch; features["input_mask"] is int
      [batch_size, max_seq_length].
    max_seq_length: int, the static length of the sequence features.
    buckets: list of lengths; default `bucket_lengths(max_seq_length)`.

  Returns:
    dict like `features`; sequence features have shape [batch_size, None].
  """
  buckets = list(buckets or bucket_lengths(max_seq_length))
  length = trimmed_length(features["input_mask"], buckets)
  out = {}
  for key, value in features.items():
    shape = value.shape
    if shape.rank == 2 and shape[1] == max_seq_length:
      value = value[:, :length]
    out[key] = value
  return out


def trim_batch_padding(dataset, max_seq_length, buckets=None):
  """`trim_features` on every batch of a batched tf.data.Dataset of dicts."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  return dataset.map(
      tf.autograph.experimental.do_not_convert(
          lambda f: trim_features(f, max_seq_length, buckets)),
      num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)


def group_by_length(dataset, batch_size, buckets, drop_remainder=True):
  """Batches similar lengths together (training only; changes the batches).

  Hugging Face's `group_by_length`, on tf.data's
  `bucket_by_sequence_length`: each element goes to the first of `buckets`
  that holds its real length (the sum of its input_mask), and a batch is
  emitted when a bucket has `batch_size` elements; `trim_batch_padding`
  after it runs short batches short.

  Example:
    >>> import tensorflow as tf
    >>> masks = [[1] * n + [0] * (16 - n) for n in (2, 15, 3, 14, 4, 16)]
    >>> d = tf.data.Dataset.from_tensor_slices({"input_mask": masks})
    >>> batches = group_by_length(d, 2, [8, 16], drop_remainder=False)
    >>> [sorted(b["input_mask"].numpy().sum(1).tolist()) for b in batches]
    [[2, 3], [14, 15], [4], [16]]

  Args:
    dataset: tf.data.Dataset of unbatched feature dicts;
      features["input_mask"] is int [seq_length].
    batch_size: int, examples per batch.
    buckets: ascending list of int lengths (`bucket_lengths`).
    drop_remainder: bool, drop the buckets' last partial batches.

  Returns:
    tf.data.Dataset of batched feature dicts (still [batch_size,
    seq_length]: `trim_batch_padding` cuts them).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  buckets = list(buckets)
  return dataset.bucket_by_sequence_length(
      element_length_func=lambda f: tf.cast(
          tf.reduce_sum(tf.cast(tf.not_equal(f["input_mask"], 0), tf.int32)),
          tf.int32),
      # Length L joins the first bucket B with L <= B: boundaries B + 1.
      bucket_boundaries=[b + 1 for b in buckets[:-1]],
      bucket_batch_sizes=[batch_size] * len(buckets),
      no_padding=True, drop_remainder=drop_remainder)
