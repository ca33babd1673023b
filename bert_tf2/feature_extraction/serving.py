"""Feature serving: the raw-text SavedModel of a `FeatureEncoder`.

`feature_server`: serving_default(text) and serving_pair(text_a, text_b)
-> token_vectors [batch, max_seq_length, len(layers), hidden], input_mask
[batch, max_seq_length], mean_vectors and cls_vectors [batch,
len(layers), hidden].

Example (pooling the vectors of one text of 2 tokens, 1 layer, hidden 2):
  >>> out = pool({"token_vectors": tf.constant([[[[1., 2.]], [[3., 4.]],
  ...                                            [[9., 9.]]]]),
  ...             "input_mask": tf.constant([[1, 1, 0]])})
  >>> out["mean_vectors"].numpy().tolist(), out["cls_vectors"].numpy().tolist()
  ([[[2.0, 3.0]]], [[[1.0, 2.0]]])
"""

import tensorflow as tf

from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving


def pool(outputs):
  """Adds "mean_vectors" and "cls_vectors" to {"token_vectors", "input_mask"}."""
  vectors = outputs["token_vectors"]   # [batch, seq, layers, hidden]
  mask = tf.cast(outputs["input_mask"], vectors.dtype)[:, :, None, None]
  mean = (tf.reduce_sum(vectors * mask, axis=1) /
          tf.maximum(tf.reduce_sum(mask, axis=1), 1.0))
  return dict(outputs, mean_vectors=mean, cls_vectors=vectors[:, 0])


def feature_server(model, chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
  """The `common.serving.TextServer` of `FeatureTextModel` `model` (an
  empty text_b is a single text), vectors at full max_seq_length."""
  return serving.TextServer(
      model.preprocessor, model.task,
      lambda features, vectors, texts: vectors,
      signatures={"serving_default": ("text",),
                  "serving_pair": ("text_a", "text_b")},
      chunk_size=chunk_size, trim_padding=False, name="feature_server")
