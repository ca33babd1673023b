"""Feature serving: `FeatureServer`, the raw-text SavedModel of an encoder.

Written by `bert_tf2.feature_extraction.predictor.FeatureEncoder.export(dir)`: serving_default(text)
and serving_pair(text_a, text_b) -> token_vectors [batch, max_seq_length,
len(layers), hidden], input_mask [batch, max_seq_length], mean_vectors and
cls_vectors [batch, len(layers), hidden] (see bert_tf2/feature_extraction/predictor.py).

Example (pooling the vectors of one text of 2 tokens, 1 layer, hidden 2):
  >>> out = pool({"token_vectors": tf.constant([[[[1., 2.]], [[3., 4.]],
  ...                                            [[9., 9.]]]]),
  ...             "input_mask": tf.constant([[1, 1, 0]])})
  >>> out["mean_vectors"].numpy().tolist(), out["cls_vectors"].numpy().tolist()
  ([[[2.0, 3.0]]], [[[1.0, 2.0]]])
"""

import tensorflow as tf

from bert_tf2.common import raw_text_serving


def pool(outputs):
  """Adds "mean_vectors" and "cls_vectors" to {"token_vectors", "input_mask"}."""
  vectors = outputs["token_vectors"]   # [batch, seq, layers, hidden]
  mask = tf.cast(outputs["input_mask"], vectors.dtype)[:, :, None, None]
  mean = (tf.reduce_sum(vectors * mask, axis=1) /
          tf.maximum(tf.reduce_sum(mask, axis=1), 1.0))
  return dict(outputs, mean_vectors=mean, cls_vectors=vectors[:, 0])


class FeatureServer(tf.Module):
  """The encoder and an in-graph tokenizer; raw-string signatures."""

  def __init__(self, encoder, tokenizer,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
    super().__init__(name="feature_server")
    self.model = encoder.model
    self.tokenizer = tokenizer
    self._encoder_forward = encoder._forward  # pylint: disable=protected-access
    self.chunk_size = int(chunk_size)
    self.max_seq_length = encoder.max_seq_length
    text = raw_text_serving.TEXT_SPEC
    self.serve_text = tf.function(self._serve_text, input_signature=[text])
    self.serve_pair = tf.function(self._serve_pair,
                                  input_signature=[text, text])

  def _forward(self, input_ids, input_mask, segment_ids):
    """The vectors, chunk_size rows per model call (bounded memory)."""
    return raw_text_serving.call_in_chunks(
        lambda x: self._encoder_forward(*x),
        (input_ids, input_mask, segment_ids), self.chunk_size)

  def _serve_pair(self, text_a, text_b):
    text_a, text_b = raw_text_serving.check_text_inputs(
        text_a, text_b, names=["text_a", "text_b"])
    # An empty text_b is a single text, as in convert_example.
    ids_b = self.tokenizer.tokenize(text_b)
    single = self.tokenizer.bert_inputs(text_a, None, self.max_seq_length)
    pair = self.tokenizer.bert_inputs(text_a, text_b, self.max_seq_length)
    has_b = (ids_b.row_lengths() > 0)[:, tf.newaxis]
    inputs = {k: tf.where(has_b, pair[k], single[k]) for k in pair}
    return self._forward(inputs["input_ids"], inputs["input_mask"],
                         inputs["segment_ids"])

  def _serve_text(self, text):
    text, = raw_text_serving.check_text_inputs(text)
    inputs = self.tokenizer.bert_inputs(text, None, self.max_seq_length)
    return self._forward(inputs["input_ids"], inputs["input_mask"],
                         inputs["segment_ids"])
