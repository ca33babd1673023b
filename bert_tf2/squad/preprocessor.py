"""SquadPreprocessor: raw (question, context[, answer]) -> SQuAD windows.

A Keras layer (a `BertPreprocessor`) that builds run_squad.py's features
in graph, batched:

  call((questions, contexts))
      every doc_stride window of every context (`windows`), and per
      question the contexts' words and pieces (CONTEXT_KEYS).
  call((questions, contexts, answer_starts, answer_texts))
      the training windows of `squad.features.convert_examples_to_features`
      with "start_positions" and "end_positions" [windows] (0, [CLS], when
      the answer is not inside; answer_start < 0: unanswerable). As the
      original, an example whose answer text is not found again in its
      words produces no window, nor does an empty context.

Example:
  >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "who", "?", "ann", "ran"]
  >>> pre = SquadPreprocessor(vocab, max_seq_length=8, doc_stride=2,
  ...                         max_query_length=2)
  >>> out = pre((tf.constant(["who ?"]), tf.constant(["ann ran"]),
  ...            tf.constant([0]), tf.constant(["ann"])))
  >>> out["input_ids"].numpy().tolist(), out["start_positions"].numpy().tolist()
  ([[2, 4, 5, 3, 6, 7, 3, 0]], [4])
"""

import keras
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import preprocessor
from bert_tf2.squad import answer_spans
from modeling import layers
from tokenization import packing

FEATURES = ("input_ids", "input_mask", "segment_ids")

# RaggedTensors [questions, (words)] tf.string and [questions, (pieces)]
# int64 (`answer_spans.context_words` and `context_pieces`).
CONTEXT_KEYS = ("context_words", "context_pieces", "piece_word")


@layers.serializable
class SquadPreprocessor(preprocessor.BertPreprocessor):
  """Raw SQuAD examples -> window features (see module docstring)."""

  def __init__(self, vocabulary, do_lower_case=True, max_seq_length=384,
               doc_stride=128, max_query_length=64, **kwargs):
    """Args as run_squad.py's flags; vocabulary as `BertPreprocessor`'s."""
    super().__init__(vocabulary, do_lower_case=do_lower_case,
                     max_seq_length=max_seq_length, **kwargs)
    self.doc_stride = int(doc_stride)
    self.max_query_length = int(max_query_length)
    if (self.max_seq_length - 3 - self.max_query_length < 1 or
        self.doc_stride < 1):
      raise InputError(
          "max_seq_length=%d, max_query_length=%d, doc_stride=%d: no room "
          "for context windows (need max_seq_length > max_query_length + 3 "
          "and doc_stride >= 1)" % (self.max_seq_length,
                                    self.max_query_length, self.doc_stride))

  def context(self, contexts):
    """Contexts tf.string [batch] -> (words, begins, doc, piece_word):
    `answer_spans.context_words` and `context_pieces`."""
    words, begins = answer_spans.context_words(contexts)
    return (words, begins) + answer_spans.context_pieces(words,
                                                         self.tokenizer)

  def windows(self, questions, doc):
    """run_squad.py's doc_stride windows (`squad.features.doc_windows`):
    `[CLS] question[:max_query_length] [SEP] context pieces [SEP]`; an
    empty context gets one window `[CLS] question [SEP] [SEP]`.

    Args:
      questions: tf.string [batch].
      doc: int64 RaggedTensor [batch, (pieces)], the contexts' pieces.

    Returns:
      dict: "input_ids", "input_mask", "segment_ids" int32 [windows,
      max_seq_length]; "example_index" (the question), "window_start" (its
      first context piece), "window_length" (its context pieces) and
      "window_offset" (the position of its first context piece), int64
      [windows].
    """
    tok = self.tokenizer
    query = tok.tokenize(questions)[:, :self.max_query_length]
    example, start, length = packing.window_spans(
        doc.row_lengths(), self.max_seq_length - 3 - query.row_lengths(),
        self.doc_stride)
    features = packing.pack_inputs(
        tf.gather(query, example), packing.take_windows(doc, example, start,
                                                        length),
        self.max_seq_length, tok.cls_id, tok.sep_id, empty_b="pair")
    return dict(features, example_index=example, window_start=start,
                window_length=length,
                window_offset=tf.gather(query.row_lengths(), example) + 2)

  def training_windows(self, questions, contexts, answer_starts,
                       answer_texts):
    """Windows with "start_positions"/"end_positions" (module docstring)."""
    words, begins, doc, piece_word = self.context(contexts)
    windows = self.windows(questions, doc)
    example, start, length, offset = (windows.pop(k) for k in (
        "example_index", "window_start", "window_length", "window_offset"))
    impossible = tf.cast(answer_starts, tf.int64) < 0
    start_word, end_word, found = answer_spans.answer_words(
        contexts, words, begins, tf.maximum(answer_starts, 0), answer_texts)
    first, last = answer_spans.answer_pieces(
        piece_word, doc, self.tokenizer.tokenize(answer_texts),
        start_word, end_word)
    first, last = tf.gather(first, example), tf.gather(last, example)
    inside = (tf.logical_not(tf.gather(impossible, example)) &
              (first >= start) & (last <= start + length - 1))
    to_window = lambda p: tf.cast(
        tf.where(inside, p - start + offset, 0), tf.int32)
    keep = (tf.gather(found | impossible, example)) & (length > 0)
    out = dict(windows, start_positions=to_window(first),
               end_positions=to_window(last), example_index=example)
    return {k: tf.boolean_mask(v, keep) for k, v in out.items()}

  def call(self, inputs):
    inputs = [tf.reshape(tf.convert_to_tensor(t), [-1]) for t in inputs]
    if len(inputs) == 4:
      return self.training_windows(*inputs)
    if len(inputs) != 2:
      raise ValueError("SquadPreprocessor takes (questions, contexts) or "
                       "(questions, contexts, answer_starts, answer_texts)")
    questions, contexts = inputs
    words, _, doc, piece_word = self.context(contexts)
    # For `squad.serving.squad_outputs`: each context tokenized once.
    return dict(self.windows(questions, doc), **dict(zip(
        CONTEXT_KEYS, (words, doc, piece_word))))

  def compute_output_spec(self, inputs):
    spec = {k: keras.KerasTensor((None, self.max_seq_length), "int32")
            for k in FEATURES}
    spec["example_index"] = keras.KerasTensor((None,), "int64")
    if len(inputs) == 2:
      for k in ("window_start", "window_length", "window_offset"):
        spec[k] = keras.KerasTensor((None,), "int64")
      for k in CONTEXT_KEYS:
        spec[k] = keras.KerasTensor(
            (None, None), "string" if k == "context_words" else "int64",
            ragged=True)
    if len(inputs) == 4:
      for k in ("start_positions", "end_positions"):
        spec[k] = keras.KerasTensor((None,), "int32")
    return spec

  def get_config(self):
    config = super().get_config()
    config.update(doc_stride=self.doc_stride,
                  max_query_length=self.max_query_length)
    return config
