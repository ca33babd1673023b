"""Sliding windows over a long context and the max-context rule.

A context of `num_tokens` WordPiece tokens is covered by windows of at most
`max_tokens_for_doc` tokens starting `min(window length, doc_stride)` apart.
A token inside several windows is scored only in the window where
min(tokens to its left, tokens to its right) + 0.01 * window length is
largest (the first such window on ties).

Example:
  >>> spans = make_doc_spans(10, 4, 2)
  >>> [tuple(s) for s in spans]
  [(0, 4), (2, 4), (4, 4), (6, 4)]
  >>> max_context_span_indexes(spans, 10)
  [0, 0, 0, 1, 1, 2, 2, 3, 3, 3]
"""

import collections

DocSpan = collections.namedtuple("DocSpan", ["start", "length"])


def check_is_max_context(doc_spans, cur_span_index, position):
  """Whether window `cur_span_index` is the best one to score a token in.

  A token's context in a window is min(#tokens left of it, #tokens right of
  it) + 0.01 * window length; the first window with the highest score wins.

  Args:
    doc_spans: list of DocSpan.
    cur_span_index: int, the window asked about.
    position: int, the token's index in the tokenized context.

  Returns:
    bool.
  """
  best_score = None
  best_span_index = None
  for span_index, doc_span in enumerate(doc_spans):
    end = doc_span.start + doc_span.length - 1
    if position < doc_span.start or position > end:
      continue
    score = (min(position - doc_span.start, end - position) +
             0.01 * doc_span.length)
    if best_score is None or score > best_score:
      best_score = score
      best_span_index = span_index
  return cur_span_index == best_span_index


def max_context_span_indexes(doc_spans, num_tokens):
  """For every context token, the window `check_is_max_context` picks.

  Same rule and tie-breaking as `check_is_max_context`, computed for all
  tokens in one pass over the windows.

  Returns:
    list of num_tokens ints (window index; -1 for a token in no window).
  """
  best_score = [None] * num_tokens
  best_index = [-1] * num_tokens
  for span_index, doc_span in enumerate(doc_spans):
    end = doc_span.start + doc_span.length - 1
    for position in range(doc_span.start, end + 1):
      score = (min(position - doc_span.start, end - position) +
               0.01 * doc_span.length)
      if best_score[position] is None or score > best_score[position]:
        best_score[position] = score
        best_index[position] = span_index
  return best_index


def make_doc_spans(num_tokens, max_tokens_for_doc, doc_stride):
  """Sliding windows over `num_tokens` context tokens.

  Returns:
    list of DocSpan(start, length); empty if num_tokens == 0.
  """
  if max_tokens_for_doc < 1:
    raise ValueError("no room for context tokens in the sequence "
                     "(max_tokens_for_doc=%d)" % max_tokens_for_doc)
  doc_spans = []
  start_offset = 0
  while start_offset < num_tokens:
    length = min(num_tokens - start_offset, max_tokens_for_doc)
    doc_spans.append(DocSpan(start=start_offset, length=length))
    if start_offset + length == num_tokens:
      break
    start_offset += min(length, doc_stride)
  return doc_spans
