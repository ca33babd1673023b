"""Classifier serving: `ClassifierServer`, the raw-string SavedModel module.

Its signatures are listed in `bert_tf2.classifier.export` (which writes it).
Ragged word-piece ids in, the int32 model inputs out, built as the Python
path builds them:
  pair_lengths     `_truncate_seq_pair`'s longest-first truncation lengths
  build_inputs     `convert_single_example`: [CLS] a [SEP] (b [SEP]), padded
  sliding_windows  `long_text.convert_example_to_windows`'s windows

Example:
  >>> ids_a = tf.ragged.constant([[7, 8, 9, 10, 11]], dtype=tf.int64)
  >>> ids_b = tf.ragged.constant([[]], dtype=tf.int64)
  >>> a, b, example = sliding_windows(ids_a, ids_b, 5, 2)
  >>> a.to_list(), example.numpy().tolist()
  ([[7, 8, 9], [9, 10, 11]], [0, 0])
  >>> build_inputs(a, b, 5, 101, 102)[0].numpy().tolist()
  [[101, 7, 8, 9, 102], [101, 9, 10, 11, 102]]
"""

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.common import raw_text_serving


def pair_lengths(len_a, len_b, max_length):
  """Lengths after the original's longest-first pair truncation.

  Same result as popping from the longer list (tokens_b on ties) until
  len_a + len_b <= max_length, computed elementwise on int Tensors.

  Example:
    >>> [int(x) for x in pair_lengths(tf.constant(5), tf.constant(4), 7)]
    [4, 3]
  """
  m = tf.cast(max_length, len_a.dtype)
  fits = len_a + len_b <= m
  a_longer = len_a > len_b
  keep_b = a_longer & (2 * len_b <= m)       # Only a is trimmed.
  keep_a = (~a_longer) & (2 * len_a <= m)    # Only b is trimmed.
  half_up, half_down = (m + 1) // 2, m // 2
  new_a = tf.where(fits | keep_a, len_a,
                   tf.where(keep_b, m - len_b, half_up))
  new_b = tf.where(fits | keep_b, len_b,
                   tf.where(keep_a, m - len_a, half_down))
  return new_a, new_b


def _take(ids, lengths):
  """First `lengths[i]` items of each row of a RaggedTensor."""
  positions = tf.ragged.range(ids.row_lengths())
  return tf.ragged.boolean_mask(ids, positions < tf.expand_dims(lengths, 1))


def build_inputs(ids_a, ids_b, max_seq_length, cls_id, sep_id):
  """Ragged word-piece ids -> int32 input_ids, input_mask, segment_ids.

  Args:
    ids_a, ids_b: int64 RaggedTensor [batch, (pieces)]; rows of ids_b may be
      empty (single-sentence examples).
    max_seq_length: int.
    cls_id, sep_id: ids of [CLS] and [SEP].

  Returns:
    Three int32 Tensors [batch, max_seq_length].
  """
  len_a, len_b = ids_a.row_lengths(), ids_b.row_lengths()
  has_b = len_b > 0
  single_a = tf.minimum(len_a, max_seq_length - 2)
  pair_a, pair_b = pair_lengths(len_a, len_b, max_seq_length - 3)
  ids_a = _take(ids_a, tf.where(has_b, pair_a, single_a))
  ids_b = _take(ids_b, tf.where(has_b, pair_b, tf.zeros_like(len_b)))
  batch = tf.shape(len_a, out_type=tf.int64)[0]
  cls = tf.RaggedTensor.from_tensor(tf.fill([batch, 1], tf.cast(cls_id,
                                                                tf.int64)))
  sep = tf.RaggedTensor.from_tensor(tf.fill([batch, 1], tf.cast(sep_id,
                                                                tf.int64)))
  n_b = tf.cast(has_b, tf.int64)
  sep_b = tf.RaggedTensor.from_row_lengths(
      tf.fill([tf.reduce_sum(n_b)], tf.cast(sep_id, tf.int64)), n_b)
  first = tf.concat([cls, ids_a, sep], axis=1)
  second = tf.concat([ids_b, sep_b], axis=1)
  tokens = tf.concat([first, second], axis=1)
  segments = tf.concat([tf.zeros_like(first), tf.ones_like(second)], axis=1)
  shape = [None, max_seq_length]
  input_ids = tokens.to_tensor(0, shape=shape)
  segment_ids = segments.to_tensor(0, shape=shape)
  input_mask = tf.ones_like(tokens).to_tensor(0, shape=shape)
  return (tf.cast(input_ids, tf.int32), tf.cast(input_mask, tf.int32),
          tf.cast(segment_ids, tf.int32))


def sliding_windows(ids_a, ids_b, max_seq_length, doc_stride):
  """The windows of `long_text.convert_example_to_windows`, in graph.

  text_b (if any) is cut to (max_seq_length - 3) // 2 pieces and repeated in
  every window; text_a is cut into windows of the longest length that fits,
  starting every min(doc_stride, window) pieces, until one reaches its end.

  Args:
    ids_a, ids_b: int64 RaggedTensor [batch, (pieces)]; empty rows of ids_b
      mean single texts.
    max_seq_length, doc_stride: ints.

  Returns:
    (window_a, window_b, example_index): int64 RaggedTensors
    [num_windows, (pieces)] and int64 [num_windows], the text of each window
    (windows in text order, a text's windows in order).
  """
  len_a, len_b = ids_a.row_lengths(), ids_b.row_lengths()
  has_b = len_b > 0
  keep_b = tf.where(has_b, tf.minimum(len_b, (max_seq_length - 3) // 2),
                    tf.zeros_like(len_b))
  ids_b = _take(ids_b, keep_b)
  window = tf.where(has_b, max_seq_length - 3 - keep_b,
                    tf.fill(tf.shape(len_b), tf.cast(max_seq_length - 2,
                                                     tf.int64)))
  step = tf.minimum(tf.cast(doc_stride, tf.int64), window)
  count = 1 + (tf.maximum(len_a - window, 0) + step - 1) // step
  example = tf.repeat(tf.range(tf.shape(len_a, out_type=tf.int64)[0]), count)
  start = (tf.ragged.range(count).flat_values *
           tf.gather(step, example))
  length = tf.minimum(tf.gather(window, example),
                      tf.gather(len_a, example) - start)
  begin = tf.gather(ids_a.row_starts(), example) + start
  window_a = tf.gather(ids_a.flat_values,
                       tf.ragged.range(begin, begin + length))
  return window_a, tf.gather(ids_b, example), example


class ClassifierServer(tf.Module):
  """Holds the model, tokenizer and labels; its functions are the signatures."""

  def __init__(self, model, tokenizer, max_seq_length, label_list,
               cls_id, sep_id, regression=False, trim_padding=True,
               long_text="truncate", doc_stride=128, multi_label=False,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
    super().__init__(name="classifier_server")
    self.chunk_size = int(chunk_size)
    self.multi_label = bool(multi_label)
    if long_text not in ("truncate", "sliding_window"):
      raise InputError("long_text=%r: expected truncate or sliding_window"
                       % (long_text,))
    if long_text == "sliding_window" and (doc_stride < 1 or
                                          max_seq_length < 4):
      raise InputError("--doc_stride=%d, --max_seq_length=%d: sliding "
                       "windows need doc_stride >= 1 and max_seq_length >= 4"
                       % (doc_stride, max_seq_length))
    self.sliding_window = long_text == "sliding_window"
    self.doc_stride = int(doc_stride)
    self.trim_padding = bool(trim_padding)
    self.model = model
    self.tokenizer = tokenizer
    self.max_seq_length = int(max_seq_length)
    self.regression = regression
    self.labels = tf.constant([str(x) for x in label_list])
    self.cls_id, self.sep_id = int(cls_id), int(sep_id)
    ids_spec = tf.TensorSpec([None, self.max_seq_length], tf.int32)
    text_spec = raw_text_serving.TEXT_SPEC
    self.serve_ids = tf.function(
        self._serve_ids, input_signature=[ids_spec] * 3)
    self.serve_text = tf.function(self._serve_text,
                                  input_signature=[text_spec])
    self.serve_pair = tf.function(self._serve_pair,
                                  input_signature=[text_spec] * 2)

  def _logits(self, input_ids, input_mask, segment_ids):
    """The model's logits, chunk_size rows per call (bounded memory)."""
    return raw_text_serving.call_in_chunks(
        self._chunk_logits, (input_ids, input_mask, segment_ids),
        self.chunk_size)

  def _chunk_logits(self, inputs):
    input_ids, input_mask, segment_ids = inputs
    if self.trim_padding:  # The chunk's longest sequence (same outputs).
      length = tf.maximum(padding.longest_length(input_mask), 1)
      input_ids, input_mask, segment_ids = (
          t[:, :length] for t in (input_ids, input_mask, segment_ids))
    return self.model({"input_ids": input_ids, "input_mask": input_mask,
                       "segment_ids": segment_ids}, training=False)

  def _outputs(self, input_ids, input_mask, segment_ids):
    return self._head(self._logits(input_ids, input_mask, segment_ids))

  def _head(self, logits):
    if self.multi_label:
      probabilities = tf.sigmoid(logits)
      return {"probabilities": probabilities, "logits": logits,
              "predicted": probabilities >= 0.5}
    if self.regression:
      return {"predictions": logits[:, 0], "logits": logits}
    return {"probabilities": tf.nn.softmax(logits, axis=-1),
            "logits": logits,
            "label": tf.gather(self.labels, tf.argmax(logits, axis=-1))}

  def _serve_ids(self, input_ids, input_mask, segment_ids):
    return self._outputs(input_ids, input_mask, segment_ids)

  def _serve_pair(self, text_a, text_b):
    return self._pair(*raw_text_serving.check_text_inputs(
        text_a, text_b, names=["text_a", "text_b"]))

  def _pair(self, text_a, text_b):
    ids_a = self.tokenizer.tokenize(text_a)
    ids_b = self.tokenizer.tokenize(text_b)
    if not self.sliding_window:
      return self._outputs(*build_inputs(ids_a, ids_b, self.max_seq_length,
                                         self.cls_id, self.sep_id))
    window_a, window_b, example = sliding_windows(
        ids_a, ids_b, self.max_seq_length, self.doc_stride)
    logits = self._logits(*build_inputs(window_a, window_b,
                                        self.max_seq_length, self.cls_id,
                                        self.sep_id))
    batch = tf.shape(text_a)[0]
    outputs = self._head(tf.math.unsorted_segment_mean(logits, example,
                                                       batch))
    outputs["num_windows"] = tf.math.bincount(
        tf.cast(example, tf.int32), minlength=batch, maxlength=batch)
    return outputs

  def _serve_text(self, text_a):
    text_a, = raw_text_serving.check_text_inputs(text_a, names=["text_a"])
    return self._pair(text_a, tf.fill(tf.shape(text_a), ""))
