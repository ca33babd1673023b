"""The window arithmetic's two homes agree: `tokenization.windows` (Python,
the records) and `tokenization.packing` (in graph, the raw-string paths):
the same starts, the same max-context window per token as run_squad.py's
`_check_is_max_context`, the same mean per row."""

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
import tensorflow as tf

from tokenization import packing
from tokenization import windows
from tokenization.errors import InputError


def _original_is_max_context(doc_spans, cur_span_index, position):
  """run_squad.py's `_check_is_max_context`, written out plainly."""
  best_score, best_span_index = None, None
  for span_index, (start, length) in enumerate(doc_spans):
    end = start + length - 1
    if position < start or position > end:
      continue
    score = min(position - start, end - position) + 0.01 * length
    if best_score is None or score > best_score:
      best_score, best_span_index = score, span_index
  return cur_span_index == best_span_index


def _original_doc_spans(num_tokens, window, stride):
  """run_squad.py's doc_spans loop (stride cut to the span's length)."""
  spans, start = [], 0
  while start < num_tokens:
    length = min(num_tokens - start, window)
    spans.append((start, length))
    if start + length == num_tokens:
      break
    start += min(length, stride)
  return spans


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(st.integers(0, 40), min_size=1, max_size=4),
       window=st.integers(1, 12), stride=st.integers(1, 15))
def test_python_and_graph_windows_and_max_context_agree(lengths, window,
                                                        stride):
  row, start, size = (x.numpy().tolist() for x in packing.window_spans(
      tf.constant(lengths, tf.int64), window, stride))
  graph_best = packing.max_context_windows(row, start, size,
                                           lengths).numpy().tolist()
  spans, best, first = [], [], 0
  for i, n in enumerate(lengths):
    mine = windows.window_spans(n, window, stride)
    assert mine == (_original_doc_spans(n, window, stride) or [(0, 0)])
    assert windows.window_starts(n, window, stride) == [s for s, _ in mine]
    row_best = windows.max_context_windows(mine, n)
    for position in range(n):
      assert [_original_is_max_context(mine, k, position)
              for k in range(len(mine))] == [
                  k == row_best[position] for k in range(len(mine))]
    spans += [(i, s, z) for s, z in mine]
    best += [first + k for k in row_best]
    first += len(mine)
  assert list(zip(row, start, size)) == spans
  assert graph_best == best


def test_mean_of_windows_equals_the_graph_merge():
  rows = [0, 0, 1, 2, 2, 2]
  values = np.arange(12, dtype=np.float32).reshape(6, 2)
  mean, count = packing.merge_windows(tf.constant(values),
                                      tf.constant(rows), 3)
  np.testing.assert_allclose(windows.mean_of_windows(rows, values, 3),
                             mean.numpy())
  assert count.numpy().tolist() == [2, 1, 3]
  with pytest.raises(ValueError, match="without windows"):
    windows.mean_of_windows([0], values[:1], 2)


def test_a_window_or_stride_below_one_is_one_line():
  with pytest.raises(InputError, match=r"window=0, stride=2"):
    windows.window_starts(10, 0, 2)
  with pytest.raises(InputError, match=r"window=4, stride=0"):
    windows.window_spans(10, 4, 0)
