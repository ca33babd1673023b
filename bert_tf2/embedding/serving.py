"""Raw-string SavedModel of a `SentenceEncoder`.

Signature (batch dimension free):
  serving_default  text: tf.string [batch] -> embeddings float32
                   [batch, hidden_size]
Tokenized in graph ([CLS] text [SEP] cut to max_seq_length), pooled and
normalised as the encoder; the serving contract of
`bert_tf2.common.raw_text_serving`.

Example:
  >>> serving.write_saved_model(embedding_server(encoder, BertPreprocessor(
  ...     vocab_file, max_seq_length=64)),
  ...                           "/tmp/emb")                  # doctest: +SKIP
  >>> m = tf.saved_model.load("/tmp/emb")                   # doctest: +SKIP
  >>> m.signatures["serving_default"](text=tf.constant(["hi"]))  # doctest: +SKIP
  {'embeddings': <tf.Tensor: shape=(1, 384), dtype=float32, ...>}
"""

from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving


def embedding_server(encoder, preprocessor,
                     chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
  """The `common.serving.TextServer` of `encoder` and its `BertPreprocessor`:
  serving_default(text) -> embeddings."""
  return serving.TextServer(
      preprocessor, encoder,
      lambda features, embeddings, texts: {"embeddings": embeddings},
      signatures={"serving_default": ("text",)}, chunk_size=chunk_size,
      name="embedding_server")


def server(model, preprocessor, **unused_settings):
  """The task's server (`bert_tf2.common.serving.server`)."""
  return embedding_server(model, preprocessor)
