"""Classifier serving: `ClassifierServer`, the raw-string SavedModel module.

Its signatures are listed in `bert_tf2.classifier.export` (which writes it).
Raw strings are tokenized in the graph and packed by the one packer,
`tokenization.packing` (`pack_inputs`: `convert_single_example`'s [CLS] a
[SEP] (b [SEP]) with longest-first pair truncation; `pair_windows`:
`long_text.convert_example_to_windows`' sliding windows).
"""

import tensorflow as tf

from bert_tf2.classifier import model as model_lib
from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.common import raw_text_serving
from tokenization import packing


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
    """The model's answers (`model.head_outputs`) and the label names."""
    outputs = model_lib.head_outputs(logits, self.regression,
                                     self.multi_label)
    if self.multi_label:
      outputs["predicted"] = outputs["probabilities"] >= 0.5
    elif not self.regression:
      outputs["label"] = tf.gather(self.labels, tf.argmax(logits, axis=-1))
    return outputs

  def _serve_ids(self, input_ids, input_mask, segment_ids):
    return self._outputs(input_ids, input_mask, segment_ids)

  def _serve_pair(self, text_a, text_b):
    return self._pair(*raw_text_serving.check_text_inputs(
        text_a, text_b, names=["text_a", "text_b"]))

  def _pair(self, text_a, text_b):
    ids_a = self.tokenizer.tokenize(text_a)
    ids_b = self.tokenizer.tokenize(text_b)
    if not self.sliding_window:
      return self._outputs(*self._pack(ids_a, ids_b))
    window_a, window_b, example = packing.pair_windows(
        ids_a, ids_b, self.max_seq_length, self.doc_stride)
    logits = self._logits(*self._pack(window_a, window_b))
    logits, num_windows = packing.merge_windows(logits, example,
                                                tf.shape(text_a)[0])
    outputs = self._head(logits)
    outputs["num_windows"] = num_windows
    return outputs

  def _pack(self, ids_a, ids_b):
    """(input_ids, input_mask, segment_ids) of `packing.pack_inputs`."""
    features = packing.pack_inputs(ids_a, ids_b, self.max_seq_length,
                                   self.cls_id, self.sep_id)
    return (features["input_ids"], features["input_mask"],
            features["segment_ids"])

  def _serve_text(self, text_a):
    text_a, = raw_text_serving.check_text_inputs(text_a, names=["text_a"])
    return self._pair(text_a, tf.fill(tf.shape(text_a), ""))
