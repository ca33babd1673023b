"""SQuAD's sliding windows and max-context rule, in graph (`SquadServer`).

The Python path's `squad.features` steps on ragged batches: the context's
word pieces with their words and characters (`context_pieces`),
run_squad.py's doc_stride windows and model inputs (`doc_stride_windows`,
on `tokenization.packing.window_spans`), and which window scores each
piece (`max_context`, on `packing.max_context_windows`).

Example:
  >>> q = tf.ragged.constant([[5]], dtype=tf.int64)
  >>> doc = tf.ragged.constant([[7, 8, 9, 10, 11]], dtype=tf.int64)
  >>> inputs, example, start, length, offset = doc_stride_windows(
  ...     q, doc, max_seq_length=7, doc_stride=2, cls_id=1, sep_id=2)
  >>> inputs["input_ids"].numpy().tolist()
  [[1, 5, 2, 7, 8, 9, 2], [1, 5, 2, 9, 10, 11, 2]]
  >>> start.numpy().tolist(), length.numpy().tolist(), offset.numpy().tolist()
  ([0, 2], [3, 3], [3, 3])
"""

import tensorflow as tf

from tokenization import packing


def context_pieces(words, tok):
  """Word pieces of every context, each with its word and characters.

  Returns:
    doc: int64 RaggedTensor [batch, (pieces)], the context's word pieces;
    per_piece: (local word index, first character, end character), each
      int64 RaggedTensor [batch, (pieces)];
    aligned: bool RaggedTensor [batch, (words)], whether a word's pieces
      spell it character for character (no [UNK], no stripped accents).
  """
  word_pieces = tok.tokenize(words.flat_values)   # [all words, (pieces)]
  pieces_per_example = tf.math.unsorted_segment_sum(
      word_pieces.row_lengths(), words.value_rowids(), words.nrows())
  word_of_piece = word_pieces.value_rowids()
  local_word = word_of_piece - tf.gather(words.row_starts(),
                                         tf.gather(words.value_rowids(),
                                                   word_of_piece))
  strings = tf.gather(tok._vocab_tokens, word_pieces.flat_values)  # pylint: disable=protected-access
  suffix = tf.strings.regex_full_match(strings, "##.+")
  length = tf.strings.length(strings, unit="UTF8_CHAR") - tf.where(
      suffix, 2, 0)
  unk = tf.equal(strings, tok.unk_token)
  piece_len = tf.RaggedTensor.from_row_lengths(length,
                                               word_pieces.row_lengths())
  start = tf.math.cumsum(piece_len, axis=1, exclusive=True).flat_values
  aligned = tf.logical_and(
      tf.equal(tf.reduce_sum(piece_len, axis=1),
               tf.strings.length(words.flat_values, unit="UTF8_CHAR")),
      tf.logical_not(tf.reduce_any(tf.RaggedTensor.from_row_lengths(
          unk, word_pieces.row_lengths()), axis=1)))
  by_example = lambda x: tf.RaggedTensor.from_row_lengths(
      x, pieces_per_example)
  per_piece = tuple(by_example(x) for x in (
      local_word, tf.cast(start, tf.int64),
      tf.cast(start + length, tf.int64)))
  aligned = tf.RaggedTensor.from_row_lengths(
      aligned, tf.cast(words.row_lengths(), tf.int64))
  return by_example(word_pieces.flat_values), per_piece, aligned

def doc_stride_windows(query, doc, max_seq_length, doc_stride, cls_id,
                       sep_id):
  """run_squad's doc_stride windows (`squad.features.doc_windows`).

  Args:
    query: int64 RaggedTensor [batch, (pieces)], the cut questions.
    doc: int64 RaggedTensor [batch, (pieces)], the contexts.
    max_seq_length, doc_stride: ints, as run_squad.py's flags.
    cls_id, sep_id: ids of [CLS] and [SEP].

  Returns:
    inputs: the model's int32 features [num_windows, max_seq_length];
    example, start, length, offset: int64 [num_windows], each window's
      question, first context piece, number of context pieces and the
      position of that first piece in the sequence. An empty context
      gets one window with no context piece.
  """
  example, start, length = packing.window_spans(
      doc.row_lengths(), max_seq_length - 3 - query.row_lengths(),
      doc_stride)
  pieces = packing.take_windows(doc, example, start, length)
  query = tf.gather(query, example)
  column = lambda i: tf.RaggedTensor.from_tensor(tf.fill(
      [tf.shape(example, out_type=tf.int64)[0], 1], tf.cast(i, tf.int64)))
  first = tf.concat([column(cls_id), query, column(sep_id)], 1)
  second = tf.concat([pieces, column(sep_id)], 1)
  ids = tf.concat([first, second], 1)
  segments = tf.concat([tf.zeros_like(first), tf.ones_like(second)], 1)
  shape = [None, max_seq_length]
  inputs = {
      "input_ids": tf.cast(ids.to_tensor(0, shape=shape), tf.int32),
      "input_mask": tf.cast(tf.ones_like(ids).to_tensor(0, shape=shape),
                            tf.int32),
      "segment_ids": tf.cast(segments.to_tensor(0, shape=shape), tf.int32)}
  return inputs, example, start, length, first.row_lengths()

def max_context(doc, example, start, length, in_doc, relative):
  """bool [num_windows, seq]: the window is the token's max-context one
  (`tokenization.packing.max_context_windows`, run_squad.py's
  `token_is_max_context`).

  Args:
    doc: the contexts' word pieces (`context_pieces`).
    example, start, length: int64 [num_windows] (`doc_stride_windows`).
    in_doc: bool [num_windows, seq], the position holds a context piece.
    relative: int64 [num_windows, seq], position - the window's offset.
  """
  # One spare entry (-1) for the positions outside the context.
  best = tf.concat([packing.max_context_windows(
      example, start, length, doc.row_lengths()), [-1]], 0)
  clipped = tf.clip_by_value(relative, 0,
                             tf.maximum(length[:, tf.newaxis] - 1, 0))
  piece = start[:, tf.newaxis] + clipped + tf.gather(
      doc.row_starts(), example)[:, tf.newaxis]
  window = tf.range(tf.shape(start, out_type=tf.int64)[0])[:, tf.newaxis]
  piece = tf.where(in_doc, piece, tf.shape(best, out_type=tf.int64)[0] - 1)
  return in_doc & tf.equal(tf.gather(best, piece), window)
