"""Sliding windows over a long token sequence, in Python (the records path).

The Python twin of `tokenization.packing`'s in-graph windows: the same
three rules, used by run_classifier.py's `--long_text=sliding_window`,
run_ner.py's sentence windows and run_squad.py's doc_stride windows, so
that the records each script writes stay byte-identical to the original's
and equal to what the raw-string paths compute in the graph.

* starts (`window_starts`, `window_spans`): windows of at most `window`
  tokens start at 0, stride, 2 * stride, ... (stride cut to the window)
  until one reaches the end; an empty sequence has one empty window.
* max context (`max_context_windows`): a token inside several windows is
  scored in the one where min(tokens to its left, tokens to its right) +
  0.01 * window length (`context_score`) is largest, the first on ties
  (run_squad.py's `_check_is_max_context`; run_ner's home window of a word).
* merge (`mean_of_windows`): per-window outputs averaged per sequence
  (run_classifier.py's window logits); a max-context merge takes each
  token's value from its `max_context_windows` window.

Example:
  >>> window_spans(10, 4, 2)
  [(0, 4), (2, 4), (4, 4), (6, 4)]
  >>> max_context_windows(window_spans(10, 4, 2), 10)
  [0, 0, 0, 1, 1, 2, 2, 3, 3, 3]
  >>> mean_of_windows([0, 0, 1], [[1., 3.], [3., 1.], [0., 2.]], 2).tolist()
  [[2.0, 2.0], [0.0, 2.0]]
"""

from tokenization.errors import InputError


def window_starts(num_tokens, window, stride):
  """Start offsets of the windows covering `num_tokens` tokens ([0] for
  none): 0, s, 2s, ... with s = min(stride, window), until start + window
  >= num_tokens."""
  if window < 1 or stride < 1:
    raise InputError("the window length and the stride between windows "
                     "must be >= 1 (window=%d, stride=%d)" % (window, stride))
  step = min(stride, window)
  starts = [0]
  while starts[-1] + window < num_tokens:
    starts.append(starts[-1] + step)
  return starts


def window_spans(num_tokens, window, stride):
  """[(start, length)] of the windows of `window_starts`."""
  return [(start, min(window, num_tokens - start))
          for start in window_starts(num_tokens, window, stride)]


def context_score(offset, length):
  """How much context a token at `offset` of a window of `length` tokens
  has: min(left, right) + 0.01 * length."""
  return min(offset, length - 1 - offset) + 0.01 * length


def max_context_windows(spans, num_tokens):
  """For every token, the index of its max-context window among `spans`
  ([(start, length)]), the first on ties; -1 for a token in no window."""
  best_score = [None] * num_tokens
  best = [-1] * num_tokens
  for index, (start, length) in enumerate(spans):
    for position in range(start, start + length):
      score = context_score(position - start, length)
      if best_score[position] is None or score > best_score[position]:
        best_score[position] = score
        best[position] = index
  return best


def mean_of_windows(rows, values, num_rows):
  """Per-window values [num_windows, ...] -> the mean of each row's
  windows, float64 [num_rows, ...] (`rows`: the row of each window; every
  row must have one)."""
  import numpy as np  # pylint: disable=g-import-not-at-top
  rows = np.asarray(rows, dtype=np.int64)
  values = np.asarray(values, dtype=np.float64)
  sums = np.zeros((num_rows,) + values.shape[1:])
  np.add.at(sums, rows, values)
  counts = np.bincount(rows, minlength=num_rows)[:num_rows]
  if np.any(counts == 0):
    raise ValueError("rows without windows: %s" %
                     np.flatnonzero(counts == 0)[:10].tolist())
  return sums / counts.reshape((-1,) + (1,) * (values.ndim - 1))
