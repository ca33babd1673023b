"""`SquadServer`: SQuAD answers from raw strings inside one TF graph.

See `bert_tf2.predict.squad` for what it computes and how it differs from
the Python path. Steps (all batched, [batch] = number of questions):

1. context -> words: split on the original's whitespace (" ", \\t, \\r, \\n,
   U+202F); each word -> word pieces (`InGraphTokenizer`), so every piece
   knows its word, as run_squad.py's tok_to_orig_index;
2. [CLS] question[:max_query_length] [SEP] context pieces (cut to fit) [SEP];
3. the model's start/end logits; candidate spans as the original's n-best:
   a start among the top n_best_size start logits, an end among the top
   n_best_size end logits, both in the context, start <= end, at most
   max_answer_length pieces; the best by start + end logit;
4. the text: the context words of the span, the first and last trimmed to
   the pieces' character offsets when every word of the span has as many
   characters as its pieces (else whole words).
"""

import tensorflow as tf

_WHITESPACE = "[ \t\r\n\u202f]"


def _ragged_take(values, row_lengths, limit):
  """First min(row_length, limit[i]) items of each row of a ragged tensor."""
  ragged = tf.RaggedTensor.from_row_lengths(values, row_lengths)
  keep = tf.ragged.range(row_lengths) < tf.expand_dims(limit, 1)
  return tf.ragged.boolean_mask(ragged, keep)


def _pick(ragged, index):
  """ragged[b, index[b]] for every row b (0 where the row is too short)."""
  flat = tf.concat([ragged.flat_values, tf.zeros([1], ragged.dtype)], 0)
  inside = index < ragged.row_lengths()
  position = tf.where(inside, ragged.row_starts() + index,
                      tf.shape(ragged.flat_values, out_type=tf.int64)[0])
  return tf.gather(flat, position)


class SquadServer(tf.Module):
  """Holds the model and tokenizer; `serve(question, context)` is the signature."""

  def __init__(self, model, tokenizer, max_seq_length, max_query_length,
               n_best_size, max_answer_length, version_2_with_negative,
               null_score_diff_threshold):
    super().__init__(name="squad_server")
    self.model = model
    self.tokenizer = tokenizer
    self.max_seq_length = int(max_seq_length)
    self.max_query_length = int(max_query_length)
    self.n_best_size = int(n_best_size)
    self.max_answer_length = int(max_answer_length)
    self.version_2 = bool(version_2_with_negative)
    self.threshold = float(null_score_diff_threshold)
    text = tf.TensorSpec([None], tf.string)
    self.serve = tf.function(self._serve, input_signature=[text, text])

  def _words(self, context):
    """Context -> ragged words [batch, (words)]."""
    words = tf.strings.split(tf.strings.regex_replace(context, _WHITESPACE,
                                                      " "), sep=" ")
    return tf.ragged.boolean_mask(words, tf.strings.length(words) > 0)

  def _inputs(self, question, words):
    """Model inputs plus, per context piece, its word and character span."""
    tok = self.tokenizer
    query = tok.tokenize(question)[:, :self.max_query_length]
    word_pieces = tok.tokenize(words.flat_values)   # [all words, (pieces)]
    pieces_per_example = tf.math.segment_sum(
        word_pieces.row_lengths(), words.value_rowids())
    pieces_per_example = tf.concat([pieces_per_example, tf.zeros(
        [words.nrows() - tf.shape(pieces_per_example, tf.int64)[0]],
        tf.int64)], 0)
    budget = self.max_seq_length - 3 - query.row_lengths()
    doc = _ragged_take(word_pieces.flat_values, pieces_per_example, budget)
    # Per piece of every word: local word index and character offsets.
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
    per_piece = [_ragged_take(x, pieces_per_example, budget) for x in (
        local_word, start, start + length)]
    batch = tf.shape(question, out_type=tf.int64)[0]
    column = lambda i: tf.RaggedTensor.from_tensor(tf.fill(
        [batch, 1], tf.cast(i, tf.int64)))
    first = tf.concat([column(tok.cls_id), query, column(tok.sep_id)], 1)
    second = tf.concat([doc, column(tok.sep_id)], 1)
    ids = tf.concat([first, second], 1)
    segments = tf.concat([tf.zeros_like(first), tf.ones_like(second)], 1)
    shape = [None, self.max_seq_length]
    inputs = {
        "input_ids": tf.cast(ids.to_tensor(0, shape=shape), tf.int32),
        "input_mask": tf.cast(tf.ones_like(ids).to_tensor(0, shape=shape),
                              tf.int32),
        "segment_ids": tf.cast(segments.to_tensor(0, shape=shape), tf.int32)}
    offset = first.row_lengths()
    aligned = tf.RaggedTensor.from_row_lengths(
        aligned, tf.cast(words.row_lengths(), tf.int64))
    return inputs, offset, doc.row_lengths(), per_piece, aligned

  def _best_spans(self, start_logits, end_logits, offset, num_doc):
    """(start, end, score, found) of the best valid span per example."""
    seq = self.max_seq_length
    k = min(self.n_best_size, seq)
    def top(logits):
      index = tf.math.top_k(logits, k=k).indices
      return tf.reduce_max(tf.one_hot(index, seq, dtype=tf.int32), 1) > 0
    positions = tf.range(seq, dtype=tf.int64)[tf.newaxis]
    in_doc = ((positions >= offset[:, tf.newaxis]) &
              (positions < (offset + num_doc)[:, tf.newaxis]))
    ok_start = top(start_logits) & in_doc
    ok_end = top(end_logits) & in_doc
    i = tf.range(seq)[:, tf.newaxis]
    j = tf.range(seq)[tf.newaxis]
    ok_len = (j >= i) & (j - i + 1 <= self.max_answer_length)
    valid = (ok_start[:, :, tf.newaxis] & ok_end[:, tf.newaxis, :] &
             ok_len[tf.newaxis])
    scores = start_logits[:, :, tf.newaxis] + end_logits[:, tf.newaxis, :]
    scores = tf.where(valid, scores, tf.fill(tf.shape(scores), -1e30))
    flat = tf.reshape(scores, [-1, seq * seq])
    best = tf.argmax(flat, axis=1, output_type=tf.int32)
    found = tf.reduce_any(tf.reshape(valid, [-1, seq * seq]), axis=1)
    return best // seq, best % seq, tf.reduce_max(flat, axis=1), found

  def _text(self, words, per_piece, aligned, start, end):
    """Answer strings of piece spans [start, end] (doc-relative, int64)."""
    local_word, char_start, char_end = per_piece
    w0, w1 = _pick(local_word, start), _pick(local_word, end)
    c0 = tf.cast(_pick(char_start, start), tf.int32)
    c1 = tf.cast(_pick(char_end, end), tf.int32)
    base = words.row_starts()
    span = tf.ragged.range(base + w0, base + w1 + 1)   # global word indexes
    flat_words = tf.concat([words.flat_values, [""]], 0)
    flat_aligned = tf.concat([aligned.flat_values, [False]], 0)
    span_words = tf.gather(flat_words, span)
    trim = tf.reduce_all(tf.gather(flat_aligned, span), axis=1)
    first = tf.gather(flat_words, base + w0)
    last = tf.gather(flat_words, base + w1)
    single = tf.equal(w0, w1)
    first_cut = tf.strings.substr(
        first, c0, tf.where(single, c1 - c0,
                            tf.strings.length(first, unit="UTF8_CHAR")),
        unit="UTF8_CHAR")
    last_cut = tf.strings.substr(last, tf.zeros_like(c1), c1,
                                 unit="UTF8_CHAR")
    parts = tf.concat([first_cut[:, tf.newaxis], span_words[:, 1:-1],
                       last_cut[:, tf.newaxis]], axis=1)
    trimmed = tf.where(single, first_cut,
                       tf.strings.reduce_join(parts, axis=1, separator=" "))
    whole = tf.strings.reduce_join(span_words, axis=1, separator=" ")
    return tf.where(trim, trimmed, whole)

  def _serve(self, question, context):
    words = self._words(context)
    inputs, offset, num_doc, per_piece, aligned = self._inputs(question,
                                                               words)
    start_logits, end_logits = self.model(inputs, training=False)
    start, end, score, found = self._best_spans(start_logits, end_logits,
                                                offset, num_doc)
    start64, end64 = tf.cast(start, tf.int64), tf.cast(end, tf.int64)
    safe = lambda p: tf.where(found, p - offset, tf.zeros_like(p))
    text = self._text(words, per_piece, aligned, safe(start64), safe(end64))
    # No valid span: "" (SQuAD 2.0) or "empty", the original's placeholder.
    text = tf.where(found, text, "" if self.version_2 else "empty")
    pick = lambda t, idx: tf.gather(t, idx, batch_dims=1)
    start_logit = pick(start_logits, start)
    end_logit = pick(end_logits, end)
    null = start_logits[:, 0] + end_logits[:, 0]
    diff = null - score
    if self.version_2:
      no_answer = tf.logical_or(diff > self.threshold,
                                tf.logical_not(found))
    else:
      no_answer = tf.zeros_like(found)
    return {"answer": tf.where(no_answer, "", text), "score": score,
            "start_logit": start_logit, "end_logit": end_logit,
            "null_score_diff": diff, "no_answer": no_answer}
