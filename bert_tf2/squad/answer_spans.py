"""SQuAD contexts and training answers -> words and word pieces, in graph:
what `squad.examples` and `squad.features` do, batched over examples
(`context_words`, `context_pieces`, `answer_words`, `answer_pieces`).

Example:
  >>> words, begins = context_words(tf.constant(["ab  cd\\u202fe"]))
  >>> words.to_list(), begins.to_list()
  ([[b'ab', b'cd', b'e']], [[0, 4, 9]])
"""

import tensorflow as tf
import tensorflow_text as tf_text

from tokenization import tables

# `squad.examples.is_whitespace`: the words of a SQuAD context.
_READER_SPACE = "[ \t\r\n\u202f]+"


def context_words(contexts):
  """Contexts -> words and their first byte.

  Args:
    contexts: tf.string Tensor [batch].

  Returns:
    words: tf.string RaggedTensor [batch, (words)];
    begins: int64 RaggedTensor [batch, (words)], byte offsets.
  """
  words, begins, _ = tf_text.regex_split_with_offsets(contexts,
                                                      _READER_SPACE)
  return words, begins


def context_pieces(words, tok):
  """Word pieces of every context, each with its word (run_squad.py's
  tok_to_orig_index, in graph).

  Args:
    words: tf.string RaggedTensor [batch, (words)] (`context_words`).
    tok: the `tokenization.tf_text.InGraphTokenizer`.

  Returns:
    doc: int64 RaggedTensor [batch, (pieces)], the context's word pieces;
    piece_word: int64 RaggedTensor [batch, (pieces)], each piece's word
      (its index in the context's words).
  """
  word_pieces = tok.tokenize(words.flat_values)   # [all words, (pieces)]
  pieces_per_example = tf.math.unsorted_segment_sum(
      word_pieces.row_lengths(), words.value_rowids(), words.nrows())
  word_of_piece = word_pieces.value_rowids()
  piece_word = word_of_piece - tf.gather(words.row_starts(),
                                         tf.gather(words.value_rowids(),
                                                   word_of_piece))
  by_example = lambda x: tf.RaggedTensor.from_row_lengths(
      x, pieces_per_example)
  return by_example(word_pieces.flat_values), by_example(piece_word)


def pick(ragged, index):
  """ragged[b, index[b]] for every row b (index clipped into the row)."""
  index = tf.clip_by_value(index, 0,
                           tf.maximum(ragged.row_lengths() - 1, 0))
  flat = tf.concat([ragged.flat_values, tf.zeros([1], ragged.dtype)], 0)
  return tf.gather(flat, ragged.row_starts() + index)


def _count_per_row(ragged, limit):
  """Number of values <= limit[b] in each row b (int64 [batch])."""
  below = tf.cast(ragged.flat_values <= tf.gather(limit,
                                                  ragged.value_rowids()),
                  tf.int64)
  return tf.math.unsorted_segment_sum(below, ragged.value_rowids(),
                                      ragged.nrows())


def answer_words(contexts, words, begins, answer_starts, answer_texts):
  """Word span of each answer and whether its text is found in it.

  Args:
    contexts: tf.string [batch]; words, begins: `context_words`.
    answer_starts: int [batch], the answer's first character.
    answer_texts: tf.string [batch].

  Returns:
    (start_word, end_word, found): int64, int64, bool [batch].
  """
  _, char_bytes = tf.strings.unicode_decode_with_offsets(contexts, "UTF-8")
  length = tf.strings.length(answer_texts, unit="UTF8_CHAR")
  first = tf.cast(answer_starts, tf.int64)
  last = first + tf.cast(length, tf.int64) - 1
  start_word = _count_per_row(begins, pick(char_bytes, first)) - 1
  end_word = _count_per_row(begins, pick(char_bytes, last)) - 1
  base = words.row_starts()
  span = tf.ragged.range(base + tf.maximum(start_word, 0),
                         base + end_word + 1)
  actual = tf.strings.reduce_join(tf.gather(words.flat_values, span),
                                  axis=1, separator=" ")
  found = find(actual, collapse_whitespace(answer_texts)) >= 0
  return start_word, end_word, found


def collapse_whitespace(text):
  """Python's " ".join(text.split()), tf.string [batch] -> [batch]."""
  space = tables.python_space_class()
  return tf.strings.regex_replace(
      tf.strings.regex_replace(text, "^%s+|%s+$" % (space, space), ""),
      space + "+", " ")


def find(text, pattern):
  """text.find(pattern) in bytes, -1 where absent (tf.string [batch]): every
  offset of `text` tried (a byte match of valid UTF-8 is a character
  match)."""
  size = tf.strings.length(pattern)
  tries = tf.ragged.range(tf.maximum(tf.strings.length(text) - size + 1, 0))
  row = tries.value_rowids()
  hit = tf.equal(tf.strings.substr(tf.gather(text, row), tries.flat_values,
                                   tf.gather(size, row)),
                 tf.gather(pattern, row))
  first = tf.math.unsorted_segment_min(
      tf.where(hit, tries.flat_values, tf.int32.max), row, tries.nrows())
  return tf.where(first < tf.int32.max, first, -1)


def answer_pieces(piece_word, doc, answer_ids, start_word, end_word):
  """Word span -> the original's word-piece span (`improve_answer_span`).

  Args:
    piece_word: int64 RaggedTensor [batch, (pieces)], each context piece's
      word (`context_pieces`).
    doc: int64 RaggedTensor [batch, (pieces)], the context's piece ids.
    answer_ids: int64 RaggedTensor [batch, (pieces)], the answer text's.
    start_word, end_word: int64 [batch] (`answer_words`).

  Returns:
    (start, end): int64 [batch], inclusive piece positions in the context.
  """
  # orig_to_tok_index[w] is the number of pieces of the words before w; the
  # last piece of end_word is one before the first of end_word + 1 (or the
  # last piece of all).
  tok_start = _count_per_row(piece_word, start_word - 1)
  tok_end = _count_per_row(piece_word, end_word) - 1
  size = answer_ids.row_lengths()
  count = tf.where(size > 0, tf.maximum(tok_end - size + 2 - tok_start, 0),
                   0)
  candidates = tf.ragged.range(tok_start, tok_start + count)
  row = candidates.value_rowids()
  offsets = tf.ragged.range(tf.gather(size, row))   # [candidates, (size)]
  at = offsets.value_rowids()
  doc_ids = tf.gather(doc.flat_values, tf.gather(
      doc.row_starts(), tf.gather(row, at)) + tf.gather(
          candidates.flat_values, at) + offsets.flat_values)
  want = tf.gather(answer_ids.flat_values, tf.gather(
      answer_ids.row_starts(), tf.gather(row, at)) + offsets.flat_values)
  same = tf.math.unsorted_segment_min(
      tf.cast(tf.equal(doc_ids, want), tf.int32), at, offsets.nrows()) > 0
  best = tf.math.unsorted_segment_min(
      tf.where(same, candidates.flat_values, tf.int64.max), row,
      candidates.nrows())
  improved = best < tf.int64.max
  return (tf.where(improved, best, tok_start),
          tf.where(improved, best + size - 1, tok_end))
