"""In-graph packing of token ids into BERT inputs, as the original scripts do.

`pack_inputs(ids_a, ids_b, max_seq_length, cls_id, sep_id)` builds
`[CLS] a [SEP]` or `[CLS] a [SEP] b [SEP]`, zero-padded to `max_seq_length`,
with `input_mask` and `segment_ids`, exactly like run_classifier.py's
`convert_single_example`: a single sequence keeps its first
`max_seq_length - 2` ids; a pair is truncated by `_truncate_seq_pair`'s rule
(remove the last id of the longer sequence, of the second one on ties, until
the pair fits `max_seq_length - 3`), computed here in closed form:

  keep_a = min(len_a, max(budget - len_b, ceil(budget / 2)))
  keep_b = min(len_b, max(budget - len_a, floor(budget / 2)))

Example:
  >>> import tensorflow as tf
  >>> a = tf.ragged.constant([[5, 6, 7, 8]], dtype=tf.int64)
  >>> b = tf.ragged.constant([[9, 10]], dtype=tf.int64)
  >>> out = pack_inputs(a, b, max_seq_length=7, cls_id=101, sep_id=102)
  >>> out["input_ids"].numpy().tolist(), out["segment_ids"].numpy().tolist()
  ([[101, 5, 6, 102, 9, 10, 102]], [[0, 0, 0, 0, 1, 1, 1]])

A row whose second sequence is empty is packed as a single sequence, as
`convert_single_example` does for an example whose text_b has no tokens;
with `empty_b="pair"` it stays a pair, `[CLS] a [SEP] [SEP]`, as
run_squad.py packs a window without context:

  >>> out = pack_inputs(a, tf.ragged.constant([[]], dtype=tf.int64), 7, 101,
  ...                   102, empty_b="pair")
  >>> out["input_ids"].numpy().tolist(), out["segment_ids"].numpy().tolist()
  ([[101, 5, 6, 7, 8, 102, 102]], [[0, 0, 0, 0, 0, 0, 1]])

Long sequences can be cut into overlapping windows first, the rule of
run_ner.py's sentence windows, run_classifier.py's
`--long_text=sliding_window` and run_squad.py's doc_stride windows (the
in-graph home of the window arithmetic; `tokenization.windows` is its
Python twin for the records): `window_spans(lengths, window, stride)` gives
each window's row, start and size (windows start every `stride` tokens
until one reaches the row's end; an empty row has one empty window), and
`take_windows` cuts the ids:

  >>> row, start, size = window_spans(tf.constant([5, 0], tf.int64), 3, 2)
  >>> row.numpy().tolist(), start.numpy().tolist(), size.numpy().tolist()
  ([0, 0, 1], [0, 2, 0], [3, 3, 0])
  >>> ids = tf.ragged.constant([[1, 2, 3, 4, 5], []], dtype=tf.int64)
  >>> take_windows(ids, row, start, size).to_list()
  [[1, 2, 3], [3, 4, 5], []]

A token inside several windows counts in one, its max-context window
(`max_context_windows`, run_squad.py's `_check_is_max_context`); the
windows' outputs become one per row by their mean (`merge_windows`) or by
taking each token's value from its max-context window.

  >>> max_context_windows(row, start, size, [5, 0]).numpy().tolist()
  [0, 0, 0, 1, 1]
"""

import tensorflow as tf


def truncated_lengths(len_a, len_b, budget):
  """Lengths kept by the original's pair truncation (int Tensors [batch])."""
  total = len_a + len_b
  keep_a = tf.minimum(len_a, tf.maximum(budget - len_b, (budget + 1) // 2))
  keep_b = tf.minimum(len_b, tf.maximum(budget - len_a, budget // 2))
  return (tf.where(total > budget, keep_a, len_a),
          tf.where(total > budget, keep_b, len_b))


def pack_inputs(ids_a, ids_b=None, max_seq_length=128, cls_id=101,
                sep_id=102, empty_b="single"):
  """Packs ragged ids into dense BERT features.

  Args:
    ids_a: int RaggedTensor [batch, (tokens)], e.g. InGraphTokenizer output.
    ids_b: optional int RaggedTensor [batch, (tokens)], the second segment;
      a row without ids is packed as `empty_b` says.
    max_seq_length: int, the padded length.
    cls_id, sep_id: ids of [CLS] and [SEP].
    empty_b: "single" (run_classifier.py: a row of ids_b without ids packs
      `[CLS] a [SEP]`, a cut to max_seq_length - 2) or "pair" (run_squad.py:
      `[CLS] a [SEP] [SEP]`, the pair's cut).

  Returns:
    dict of int32 Tensors of shape [batch, max_seq_length]: "input_ids",
    "input_mask", "segment_ids".
  """
  if empty_b not in ("single", "pair"):
    raise ValueError("empty_b=%r: expected single or pair" % (empty_b,))
  # Built from dense index arithmetic on the ragged rows' flat values, not
  # ragged concat/mask ops: the same features, with a graph that traces
  # several times faster (ragged ops build their shapes in Python) and
  # runs faster too (tests/tokenization/packing_test.py compares both with
  # the original convert_single_example).
  ids_a = tf.cast(ids_a, tf.int64)
  len_a = ids_a.row_lengths()
  keep_a = tf.minimum(len_a, max_seq_length - 2)
  if ids_b is None:
    keep_b = tf.zeros_like(len_a)
    has_b = tf.zeros_like(len_a, tf.bool)
  else:
    ids_b = tf.cast(ids_b, tf.int64)
    len_b = ids_b.row_lengths()
    has_b = len_b > 0 if empty_b == "single" else tf.ones_like(len_b,
                                                                 tf.bool)
    pair_a, keep_b = truncated_lengths(
        len_a, len_b, tf.constant(max_seq_length - 3, tf.int64))
    keep_a = tf.where(has_b, pair_a, keep_a)
  # Per row: [CLS] a[:keep_a] [SEP] (b[:keep_b] [SEP] where has_b).
  pos = tf.range(max_seq_length, dtype=tf.int64)[tf.newaxis]
  ka, kb = keep_a[:, tf.newaxis], keep_b[:, tf.newaxis]
  hb = has_b[:, tf.newaxis]
  b_first = ka + 2
  length = b_first + tf.where(hb, kb + 1, 0)
  in_a = (pos >= 1) & (pos <= ka)
  in_b = hb & (pos >= b_first) & (pos < b_first + kb)
  is_sep = tf.equal(pos, ka + 1) | (hb & tf.equal(pos, b_first + kb))
  ids = tf.where(tf.equal(pos, 0), tf.cast(cls_id, tf.int64),
                 tf.where(is_sep, tf.cast(sep_id, tf.int64), 0))
  ids += _gather_rows(ids_a, in_a, pos - 1)
  if ids_b is not None:
    ids += _gather_rows(ids_b, in_b, pos - b_first)
  mask = pos < length
  return {
      "input_ids": tf.cast(ids, tf.int32),
      "input_mask": tf.cast(mask, tf.int32),
      "segment_ids": tf.cast(mask & (pos >= b_first), tf.int32),
  }


def window_spans(lengths, window, stride):
  """Overlapping windows over rows of `lengths` tokens.

  Windows start at 0, s, 2 * s, ... with s = min(stride, window) until one
  reaches the row's end (start + window >= length):
  `tokenization.windows.window_starts`.

  Args:
    lengths: int Tensor [batch], tokens per row.
    window: int, or int Tensor [batch]: the most tokens of a window (>= 1).
    stride: int, or int Tensor [batch]: tokens between window starts (>= 1;
      cut to the window).

  Returns:
    (row, start, size): int64 Tensors [num_windows], the row of each
    window, its first token and its number of tokens; rows in order, a
    row's windows in order; every row has at least one window.
  """
  lengths = tf.cast(lengths, tf.int64)
  window = tf.broadcast_to(tf.cast(window, tf.int64), tf.shape(lengths))
  stride = tf.minimum(
      tf.broadcast_to(tf.cast(stride, tf.int64), tf.shape(lengths)), window)
  count = 1 + (tf.maximum(lengths - window, 0) + stride - 1) // stride
  row = tf.repeat(tf.range(tf.size(lengths, out_type=tf.int64)), count)
  start = tf.ragged.range(count).flat_values * tf.gather(stride, row)
  size = tf.minimum(tf.gather(window, row), tf.gather(lengths, row) - start)
  return row, start, size


def take_windows(ids, row, start, size):
  """The windows of `window_spans` cut from ragged ids.

  Args:
    ids: RaggedTensor [batch, (tokens)].
    row, start, size: int64 Tensors [num_windows] (`window_spans`).

  Returns:
    RaggedTensor [num_windows, (size)] of ids' dtype.
  """
  begin = tf.gather(tf.cast(ids.row_starts(), tf.int64), row) + start
  return tf.gather(ids.flat_values, tf.ragged.range(begin, begin + size))


def pair_windows(ids_a, ids_b, max_seq_length, doc_stride):
  """run_classifier.py's `--long_text=sliding_window` windows, in graph
  (`bert_tf2.classifier.long_text.convert_example_to_windows`).

  ids_b (if any) is cut to (max_seq_length - 3) // 2 ids and repeated in
  every window; ids_a is cut into windows of the longest length that fits,
  starting every min(doc_stride, window) ids, until one reaches its end.

  Args:
    ids_a, ids_b: int RaggedTensors [batch, (ids)]; empty rows of ids_b
      mean single texts.
    max_seq_length, doc_stride: ints.

  Returns:
    (window_a, window_b, example): int64 RaggedTensors [num_windows,
    (ids)] to pack with `pack_inputs`, and int64 [num_windows], the row of
    each window (rows in order, a row's windows in order).

  Example:
    >>> a = tf.ragged.constant([[7, 8, 9, 10, 11]], dtype=tf.int64)
    >>> b = tf.ragged.constant([[]], dtype=tf.int64)
    >>> wa, wb, example = pair_windows(a, b, 5, 2)
    >>> wa.to_list(), example.numpy().tolist()
    ([[7, 8, 9], [9, 10, 11]], [0, 0])
  """
  ids_a, ids_b = tf.cast(ids_a, tf.int64), tf.cast(ids_b, tf.int64)
  len_b = ids_b.row_lengths()
  keep_b = tf.minimum(len_b, (max_seq_length - 3) // 2)
  rows = tf.range(ids_b.nrows(out_type=tf.int64))
  ids_b = take_windows(ids_b, rows, tf.zeros_like(rows), keep_b)
  window = tf.where(len_b > 0, max_seq_length - 3 - keep_b,
                    tf.fill(tf.shape(len_b), tf.cast(max_seq_length - 2,
                                                     tf.int64)))
  example, start, size = window_spans(ids_a.row_lengths(), window,
                                      doc_stride)
  return (take_windows(ids_a, example, start, size),
          tf.gather(ids_b, example), example)


def max_context_windows(row, start, size, lengths):
  """Each token's max-context window: among the windows holding it, the
  one with the highest min(tokens left, tokens right) + 0.01 * window size
  (float64, as Python), the first on ties (`tokenization.windows.
  max_context_windows`; run_squad.py's `_check_is_max_context`).

  Args:
    row, start, size: int Tensors [num_windows] (`window_spans`).
    lengths: int Tensor [batch], tokens per row.

  Returns:
    int64 Tensor [sum(lengths)]: for every token, rows in order, the index
    of its window among all `num_windows` (-1 for a token in no window).
  """
  row, start, size = (tf.cast(x, tf.int64) for x in (row, start, size))
  lengths = tf.cast(lengths, tf.int64)
  total = tf.reduce_sum(lengths)
  offset = tf.ragged.range(size)                 # [num_windows, (size)]
  window = offset.value_rowids()
  offset, size = offset.flat_values, tf.gather(size, window)
  score = (tf.cast(tf.minimum(offset, size - 1 - offset), tf.float64) +
           0.01 * tf.cast(size, tf.float64))
  token = (tf.gather(tf.math.cumsum(lengths, exclusive=True),
                     tf.gather(row, window)) +
           tf.gather(start, window) + offset)
  best = tf.math.unsorted_segment_max(score, token, total)
  first = tf.math.unsorted_segment_min(
      tf.where(tf.equal(score, tf.gather(best, token)), window,
               tf.int64.max), token, total)
  return tf.where(first == tf.int64.max, tf.constant(-1, tf.int64), first)


def merge_windows(outputs, example, num_rows):
  """The mean of each row's window outputs: how the windows of
  `pair_windows` become one answer per text (run_classifier.py's
  `--long_text=sliding_window` averages the window logits before the
  softmax; `tokenization.windows.mean_of_windows` is the same rule for the
  records path, in Python).

  Args:
    outputs: float Tensor of shape [num_windows, ...], one row per window.
    example: int Tensor of shape [num_windows], the row of each window.
    num_rows: int scalar, the number of rows; each has at least one window.

  Returns:
    (mean, num_windows): float Tensor of shape [num_rows, ...] and int32
    Tensor of shape [num_rows], the windows each row was averaged over.

  Example:
    >>> mean, n = merge_windows(tf.constant([[1., 3.], [3., 1.], [0., 2.]]),
    ...                         tf.constant([0, 0, 1]), 2)
    >>> mean.numpy().tolist(), n.numpy().tolist()
    ([[2.0, 2.0], [0.0, 2.0]], [2, 1])
  """
  example = tf.cast(example, tf.int32)
  num_rows = tf.cast(num_rows, tf.int32)
  mean = tf.math.unsorted_segment_mean(outputs, example, num_rows)
  return mean, tf.math.bincount(example, minlength=num_rows,
                                maxlength=num_rows)


def _gather_rows(ids, where, index):
  """ids[row, index[row, k]] where `where` holds, else 0: int64 Tensor
  [batch, max_seq_length] (ids: int RaggedTensor [batch, (tokens)];
  where: bool, index: int64 [batch, max_seq_length])."""
  values = tf.concat([ids.values, tf.zeros([1], tf.int64)], 0)  # 0 at the end
  flat = tf.where(where, tf.cast(ids.row_starts(), tf.int64)[:, tf.newaxis]
                  + index,
                  tf.shape(ids.values, out_type=tf.int64)[0])
  return tf.gather(values, flat)
