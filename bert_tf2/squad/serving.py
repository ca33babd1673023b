"""SQuAD serving: `SquadServer`, answers from raw strings in one TF graph.

See `bert_tf2.squad.predictor` for what it computes and how it differs from
the Python path. Steps (all batched, [batch] = number of questions):

1. context -> words: split on the original's whitespace (" ", \\t, \\r, \\n,
   U+202F); each word -> word pieces (`InGraphTokenizer`), so every piece
   knows its word, as run_squad.py's tok_to_orig_index;
2. run_squad.py's windows: [CLS] question[:max_query_length] [SEP] context
   pieces [SEP], the context pieces of window k starting at
   k * min(doc_stride, room) until one window reaches the context's end
   (`squad.features.doc_windows`); all windows of the batch go through
   the model in one call;
3. the model's start/end logits; candidate spans of each window as the
   original's n-best: a start among the window's top n_best_size start
   logits, an end among its top n_best_size end logits, both in the
   context, the start in its max-context window
   (`tokenization.packing.max_context_windows`), start <= end, at most
   max_answer_length pieces; the best of all windows by start + end logit;
   for SQuAD 2.0 the null score is the lowest [CLS] score over the windows
   and null_score_diff = null score - best span score;
4. the text: the context words of the span, the first and last trimmed to
   the pieces' character offsets when every word of the span has as many
   characters as its pieces (else whole words).
"""

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import raw_text_serving
from bert_tf2.squad import serving_windows as windows_lib
from bert_tf2.squad.postprocess import NO_CANDIDATE_SCORE_DIFF

_WHITESPACE = "[ \t\r\n\u202f]"


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
               null_score_diff_threshold, doc_stride=128,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
    super().__init__(name="squad_server")
    self.chunk_size = int(chunk_size)
    if max_seq_length - 3 - max_query_length < 1 or doc_stride < 1:
      raise InputError(
          "max_seq_length=%d, max_query_length=%d, doc_stride=%d: no room "
          "for context windows (need max_seq_length > max_query_length + 3 "
          "and doc_stride >= 1)" % (max_seq_length, max_query_length,
                                    doc_stride))
    self.model = model
    self.tokenizer = tokenizer
    self.max_seq_length = int(max_seq_length)
    self.max_query_length = int(max_query_length)
    self.doc_stride = int(doc_stride)
    self.n_best_size = int(n_best_size)
    self.max_answer_length = int(max_answer_length)
    self.version_2 = bool(version_2_with_negative)
    self.threshold = float(null_score_diff_threshold)
    text = raw_text_serving.TEXT_SPEC
    self.serve = tf.function(self._serve, input_signature=[text, text])

  def _words(self, context):
    """Context -> ragged words [batch, (words)]."""
    words = tf.strings.split(tf.strings.regex_replace(context, _WHITESPACE,
                                                      " "), sep=" ")
    return tf.ragged.boolean_mask(words, tf.strings.length(words) > 0)

  def _best_spans(self, start_logits, end_logits, in_doc, max_context):
    """(start, end, score, found) of the best valid span of each window."""
    seq = self.max_seq_length
    k = min(self.n_best_size, seq)
    def top(logits):
      index = tf.math.top_k(logits, k=k).indices
      return tf.reduce_max(tf.one_hot(index, seq, dtype=tf.int32), 1) > 0
    ok_start = top(start_logits) & in_doc & max_context
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
    question, context = raw_text_serving.check_text_inputs(
        question, context, names=["question", "context"])
    words = self._words(context)
    doc, per_piece, aligned = windows_lib.context_pieces(words,
                                                         self.tokenizer)
    query = self.tokenizer.tokenize(question)[:, :self.max_query_length]
    inputs, example, start, length, offset = windows_lib.doc_stride_windows(
        query, doc, self.max_seq_length, self.doc_stride,
        self.tokenizer.cls_id, self.tokenizer.sep_id)
    # Every window of the batch, chunk_size windows per model call.
    start_logits, end_logits = raw_text_serving.call_in_chunks(
        lambda x: tuple(self.model(x, training=False)), inputs,
        self.chunk_size)
    relative = (tf.range(self.max_seq_length, dtype=tf.int64)[tf.newaxis] -
                offset[:, tf.newaxis])
    in_doc = (relative >= 0) & (relative < length[:, tf.newaxis])
    max_context = windows_lib.max_context(doc, example, start, length,
                                          in_doc, relative)
    w_start, w_end, w_score, w_found = self._best_spans(
        start_logits, end_logits, in_doc, max_context)
    # The best window of each question (the first on ties, as the stable
    # sort of the original's candidates).
    batch = tf.shape(question, out_type=tf.int64)[0]
    score = tf.math.unsorted_segment_max(w_score, example, batch)
    windows = tf.range(tf.shape(example, out_type=tf.int64)[0])
    best = tf.math.unsorted_segment_min(
        tf.where(tf.equal(w_score, tf.gather(score, example)), windows,
                 tf.int64.max), example, batch)
    found = tf.gather(w_found, best)
    start_pos = tf.cast(tf.gather(w_start, best), tf.int64)
    end_pos = tf.cast(tf.gather(w_end, best), tf.int64)
    shift = tf.gather(start, best) - tf.gather(offset, best)
    safe = lambda p: tf.where(found, p + shift, tf.zeros_like(p))
    text = self._text(words, per_piece, aligned, safe(start_pos),
                      safe(end_pos))
    # No valid span: "" (SQuAD 2.0) or "empty", the original's placeholder.
    text = tf.where(found, text, "" if self.version_2 else "empty")
    pick = lambda t, w, idx: tf.gather_nd(t, tf.stack([w, idx], 1))
    start_logit = pick(start_logits, best, start_pos)
    end_logit = pick(end_logits, best, end_pos)
    # The null score: the lowest [CLS] score over the question's windows
    # (the first such window's logits).
    null_w = start_logits[:, 0] + end_logits[:, 0]
    null = tf.math.unsorted_segment_min(null_w, example, batch)
    null_window = tf.math.unsorted_segment_min(
        tf.where(tf.equal(null_w, tf.gather(null, example)), windows,
                 tf.int64.max), example, batch)
    zero = tf.zeros_like(start_pos)
    if self.version_2:
      no_answer = tf.logical_or(null - score > self.threshold,
                                tf.logical_not(found))
      # No candidate span: the n-best holds only the null answer.
      diff = tf.where(found, null - score,
                      tf.cast(NO_CANDIDATE_SCORE_DIFF, score.dtype))
      # (An empty context has no window in the original: logits 0.)
      has_doc = doc.row_lengths() > 0
      null_logit = lambda t: tf.where(has_doc, pick(t, null_window, zero),
                                      tf.zeros_like(t[:1, 0]))
      start_logit = tf.where(found, start_logit, null_logit(start_logits))
      end_logit = tf.where(found, end_logit, null_logit(end_logits))
    else:
      no_answer = tf.zeros_like(found)
      diff = null - score
      # No candidate span: the original's "empty" placeholder, logits 0.
      start_logit = tf.where(found, start_logit, tf.zeros_like(start_logit))
      end_logit = tf.where(found, end_logit, tf.zeros_like(end_logit))
    score = start_logit + end_logit
    return {"answer": tf.where(no_answer, "", text), "score": score,
            "start_logit": start_logit, "end_logit": end_logit,
            "null_score_diff": diff, "no_answer": no_answer,
            "num_windows": tf.math.bincount(
                tf.cast(example, tf.int32), minlength=tf.cast(batch, tf.int32),
                maxlength=tf.cast(batch, tf.int32))}
