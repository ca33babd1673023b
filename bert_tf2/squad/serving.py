"""SQuAD serving: answers from raw strings in one TF graph, a `TextServer`.

Steps (batched, [batch] = number of questions):

1. `SquadPreprocessor`: the contexts' words and word pieces, and
   run_squad.py's doc_stride windows;
2. the model's start/end logits of every window;
3. `squad_outputs`: the original's n-best rule per window (a start among
   the top n_best_size start logits and in its max-context window, an end
   among the top n_best_size end logits, both in the context, start <=
   end, at most max_answer_length pieces); the best of all windows by
   start + end logit; for SQuAD 2.0 the null score is the lowest [CLS]
   score over the windows;
4. the text: run_squad.py's `get_final_text`, in graph
   (`final_text_in_graph`).

Signature: serving_default(question, context: tf.string [batch]) ->
answer, score, start_logit, end_logit, null_score_diff, no_answer,
num_windows [batch].
"""

import tensorflow as tf

from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving
from bert_tf2.squad import answer_spans
from bert_tf2.squad.postprocess import NO_CANDIDATE_SCORE_DIFF
from bert_tf2.squad.preprocessor import CONTEXT_KEYS
from tokenization import packing

TEXT_INPUTS = ("question", "context")
SIGNATURES = {"serving_default": TEXT_INPUTS}


def _chars(text):
  return tf.strings.length(text, unit="UTF8_CHAR")


def _non_space_chars(text):
  """Characters other than " " (`_strip_spaces`' count), int32 [batch]."""
  return _chars(tf.strings.regex_replace(text, " ", ""))


def final_text_in_graph(tokenizer, words, doc, piece_word, start, end):
  """`get_final_text` of word-piece spans, in graph.

  Args:
    tokenizer: the `tokenization.tf_text.InGraphTokenizer` of the pieces.
    words: tf.string RaggedTensor [batch, (words)], the contexts' words.
    doc: int64 RaggedTensor [batch, (pieces)], their word-piece ids.
    piece_word: int64 RaggedTensor [batch, (pieces)], each piece's word.
    start, end: int64 [batch], the span's first and last piece (start <=
      end; any value where the row has no span).

  Returns:
    tf.string [batch].
  """
  def inside(ragged, lo, hi):
    """ragged's flat indexes of row b's [lo[b], hi[b]] (empty if none)."""
    n = ragged.row_lengths()
    lo = tf.clip_by_value(lo, 0, n)
    return tf.ragged.range(ragged.row_starts() + lo, ragged.row_starts() +
                           tf.clip_by_value(hi + 1, lo, n))
  span = inside(words, answer_spans.pick(piece_word, start),
                answer_spans.pick(piece_word, end))
  orig_text = tf.strings.reduce_join(tf.gather(words.flat_values, span),
                                     axis=1, separator=" ")
  pieces = inside(doc, start, end)
  pred_text = tf.strings.reduce_join(
      tf.gather(tokenizer._vocab_tokens,  # pylint: disable=protected-access
                tf.gather(doc.flat_values, pieces)), axis=1, separator=" ")
  pred_text = answer_spans.collapse_whitespace(tf.strings.regex_replace(
      tf.strings.regex_replace(pred_text, " ##", ""), "##", ""))
  tok_text = tf.strings.reduce_join(tokenizer.basic_tokens(orig_text),
                                    axis=1, separator=" ")
  found = answer_spans.find(tok_text, pred_text)
  # Characters of tok_text: the first and last of the prediction, then
  # their places among the non-space characters, which are those of
  # orig_text when both have as many.
  first = _chars(tf.strings.substr(tok_text, tf.zeros_like(found),
                                   tf.maximum(found, 0)))
  last = first + _chars(pred_text) - 1
  prefix = lambda n: tf.strings.substr(
      tok_text, tf.zeros_like(n), tf.clip_by_value(n, 0, _chars(tok_text)),
      unit="UTF8_CHAR")
  ns_first, ns_last = (_non_space_chars(prefix(n)) for n in (first, last))
  chars = tf.strings.unicode_split(orig_text, "UTF-8")
  where = tf.ragged.boolean_mask(
      tf.ragged.range(chars.row_lengths()), tf.not_equal(chars, " "))
  orig_first, orig_last = (
      tf.cast(answer_spans.pick(where, tf.cast(n, tf.int64)), tf.int32)
      for n in (ns_first, ns_last))
  cut = tf.strings.substr(orig_text, orig_first,
                          tf.maximum(orig_last - orig_first + 1, 0),
                          unit="UTF8_CHAR")
  ok = ((found >= 0) & (tf.strings.length(pred_text) > 0) &
        tf.equal(_non_space_chars(orig_text), _non_space_chars(tok_text)))
  return tf.where(ok, cut, orig_text)


def _max_context(doc, example, start, length, in_doc, relative):
  """bool [num_windows, seq]: the window is the token's max-context one
  (`tokenization.packing.max_context_windows`, run_squad.py's
  `token_is_max_context`).

  Args:
    doc: int64 RaggedTensor [batch, (pieces)], the contexts' pieces.
    example, start, length: int64 [num_windows], each window's question,
      first context piece and number of context pieces.
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


def _best_spans(start_logits, end_logits, in_doc, max_context, seq,
                n_best_size, max_answer_length):
  """(start, end, score, found) of the best valid span of each window
  (float32 logits, bool masks [num_windows, seq]; int32, int32, float32,
  bool [num_windows])."""
  k = min(n_best_size, seq)

  def top(logits):
    index = tf.math.top_k(logits, k=k).indices
    return tf.reduce_max(tf.one_hot(index, seq, dtype=tf.int32), 1) > 0
  ok_start = top(start_logits) & in_doc & max_context
  ok_end = top(end_logits) & in_doc
  i = tf.range(seq)[:, tf.newaxis]
  j = tf.range(seq)[tf.newaxis]
  ok_len = (j >= i) & (j - i + 1 <= max_answer_length)
  valid = (ok_start[:, :, tf.newaxis] & ok_end[:, tf.newaxis, :] &
           ok_len[tf.newaxis])
  scores = start_logits[:, :, tf.newaxis] + end_logits[:, tf.newaxis, :]
  scores = tf.where(valid, scores, tf.fill(tf.shape(scores), -1e30))
  flat = tf.reshape(scores, [-1, seq * seq])
  best = tf.argmax(flat, axis=1, output_type=tf.int32)
  found = tf.reduce_any(tf.reshape(valid, [-1, seq * seq]), axis=1)
  return best // seq, best % seq, tf.reduce_max(flat, axis=1), found


def _first_best(values, example, batch, reduce):
  """(reduce of each question's window values, the first window reaching
  it): float [num_windows] -> float [batch], int64 [batch]."""
  best = reduce(values, example, batch)
  windows = tf.range(tf.shape(example, out_type=tf.int64)[0])
  first = tf.math.unsorted_segment_min(
      tf.where(tf.equal(values, tf.gather(best, example)), windows,
               tf.int64.max), example, batch)
  return best, first


def squad_outputs(preprocessor, n_best_size=20, max_answer_length=30,
                  version_2_with_negative=False,
                  null_score_diff_threshold=0.0):
  """SQuAD's outputs(features, logits, texts) for `TextServer` (steps 3
  and 4 above): windows and their (start_logits, end_logits)
  [num_windows, seq] -> the signature's dict [batch]."""
  n_best_size, max_answer_length = int(n_best_size), int(max_answer_length)
  version_2 = bool(version_2_with_negative)
  threshold = float(null_score_diff_threshold)

  def outputs(features, logits, texts):
    question = texts[0]
    words, doc, piece_word = (features[k] for k in CONTEXT_KEYS)
    example, start, length, offset = (features[k] for k in (
        "example_index", "window_start", "window_length", "window_offset"))
    start_logits, end_logits = logits
    seq = preprocessor.max_seq_length
    relative = (tf.range(seq, dtype=tf.int64)[tf.newaxis] -
                offset[:, tf.newaxis])
    in_doc = (relative >= 0) & (relative < length[:, tf.newaxis])
    w_start, w_end, w_score, w_found = _best_spans(
        start_logits, end_logits, in_doc,
        _max_context(doc, example, start, length, in_doc, relative), seq,
        n_best_size, max_answer_length)
    # The best window of each question (the first on ties, as the stable
    # sort of the original's candidates).
    batch = tf.shape(question, out_type=tf.int64)[0]
    score, best = _first_best(w_score, example, batch,
                              tf.math.unsorted_segment_max)
    found = tf.gather(w_found, best)
    start_pos = tf.cast(tf.gather(w_start, best), tf.int64)
    end_pos = tf.cast(tf.gather(w_end, best), tf.int64)
    shift = tf.gather(start, best) - tf.gather(offset, best)
    safe = lambda p: tf.where(found, p + shift, tf.zeros_like(p))
    text = final_text_in_graph(preprocessor.tokenizer, words, doc,
                               piece_word, safe(start_pos), safe(end_pos))
    # No valid span: "" (SQuAD 2.0) or "empty", the original's placeholder.
    text = tf.where(found, text, "" if version_2 else "empty")
    pick = lambda t, w, idx: tf.gather_nd(t, tf.stack([w, idx], 1))
    start_logit = pick(start_logits, best, start_pos)
    end_logit = pick(end_logits, best, end_pos)
    # The null score: the lowest [CLS] score over the question's windows
    # (the first such window's logits).
    null, null_window = _first_best(start_logits[:, 0] + end_logits[:, 0],
                                    example, batch,
                                    tf.math.unsorted_segment_min)
    zero = tf.zeros_like(start_pos)
    if version_2:
      no_answer = tf.logical_or(null - score > threshold,
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
  return outputs


def squad_server(model, preprocessor, n_best_size=20, max_answer_length=30,
                 version_2_with_negative=False, null_score_diff_threshold=0.0,
                 chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
  """The `common.serving.TextServer` of a `SquadModel` and its
  `SquadPreprocessor`, with `squad_outputs`; the model sees full windows."""
  return serving.TextServer(
      preprocessor, model,
      squad_outputs(preprocessor, n_best_size, max_answer_length,
                    version_2_with_negative, null_score_diff_threshold),
      signatures=SIGNATURES, chunk_size=chunk_size, trim_padding=False,
      name="squad_server")


def server(model, preprocessor, n_best_size=20, max_answer_length=30,
           version_2_with_negative=False, null_score_diff_threshold=0.0,
           **unused_settings):
  """The task's server (`bert_tf2.common.serving.server`)."""
  return squad_server(model, preprocessor, n_best_size, max_answer_length,
                      version_2_with_negative, null_score_diff_threshold)
