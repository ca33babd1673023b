"""Raw-string SavedModel of a `SentenceEncoder`.

Signature (batch dimension free):
  serving_default  text: tf.string [batch] -> embeddings float32
                   [batch, hidden_size]
Tokenized in graph (`tokenization.tf_text.InGraphTokenizer`, the
FullTokenizer's output), [CLS] text [SEP] cut to max_seq_length, pooled and
normalised as the encoder; the serving contract of
`bert_tf2.common.raw_text_serving` (empty batch -> empty result, 1-D
input only, invalid UTF-8 refused, chunks of `chunk_size` texts).

Example:
  >>> export_encoder(encoder, vocab_file, "/tmp/emb")      # doctest: +SKIP
  >>> m = tf.saved_model.load("/tmp/emb")                   # doctest: +SKIP
  >>> m.signatures["serving_default"](text=tf.constant(["hi"]))  # doctest: +SKIP
  {'embeddings': <tf.Tensor: shape=(1, 384), dtype=float32, ...>}
"""

import tensorflow as tf

from bert_tf2.common import padding
from bert_tf2.common import raw_text_serving
from bert_tf2.common import saved_model
from tokenization import packing
from tokenization.tf_text import InGraphTokenizer


class EmbeddingServer(tf.Module):
  """Holds the encoder and the in-graph tokenizer; serve() is the signature."""

  def __init__(self, encoder, vocab_file, do_lower_case=True,
               max_seq_length=None,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
    super().__init__(name="embedding_server")
    self.encoder = encoder
    self.tokenizer = InGraphTokenizer(vocab_file, do_lower_case=do_lower_case)
    self.max_seq_length = int(max_seq_length or encoder.max_seq_length)
    self.chunk_size = int(chunk_size)
    self.hidden_size = encoder.bert_config.hidden_size
    self.serve = tf.function(
        self._serve, input_signature=[raw_text_serving.TEXT_SPEC])

  def _embed(self, inputs):
    input_ids, input_mask, segment_ids = inputs
    length = tf.maximum(padding.longest_length(input_mask), 2)
    feats = {"input_ids": input_ids[:, :length],
             "input_mask": input_mask[:, :length],
             "segment_ids": segment_ids[:, :length]}
    return self.encoder(feats, training=False)

  def _serve(self, text):
    text, = raw_text_serving.check_text_inputs(text, names=["text"])
    features = packing.pack_inputs(
        self.tokenizer.tokenize(text), None, self.max_seq_length,
        self.tokenizer.cls_id, self.tokenizer.sep_id)
    inputs = tuple(features[k] for k in ("input_ids", "input_mask",
                                         "segment_ids"))
    embeddings = raw_text_serving.call_in_chunks(self._embed, inputs,
                                                 self.chunk_size)
    return {"embeddings": embeddings}


def export_encoder(encoder, vocab_file, export_dir, do_lower_case=True,
                   chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE,
                   what="export_dir"):
  """Writes the raw-string SavedModel of `encoder` atomically."""
  server = EmbeddingServer(encoder, vocab_file, do_lower_case,
                           chunk_size=chunk_size)
  return saved_model.write_saved_model(
      server, export_dir, {"serving_default": server.serve}, what=what)
