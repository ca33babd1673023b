"""`SentenceTextModel`: raw sentences -> embeddings; fit on text pairs.

`text_model(SentenceEncoder, directory)` builds one from a
sentence-transformers / Hugging Face or original directory
(`SentenceEncoder.from_dir`: the directory's pooling and normalisation):
a `BertPreprocessor` (one segment, [CLS] text [SEP]) and the encoder.

* `predict(texts)`: float32 [n, hidden_size] sentence vectors
  (`SentenceEncoder.encode(texts)` runs this model: `wrap(encoder)`).
* `fit(x=(anchors, positives))` or `(anchors, positives, negatives)`, no
  y: run_embedding.py's multiple-negatives ranking loss (in-batch
  negatives, `scale` 20; `bert_tf2.embedding.losses`), with the in-batch
  accuracy as metric `in_batch_accuracy`; `evaluate` the same.

`model(texts)` gives [batch, hidden_size]; `model((a, b[, c]))` gives
[batch, sides, hidden_size] (what the loss reads).

Example: see docs/keras.md; tested in tests/embedding/text_model_test.py.
"""

import keras
import tensorflow as tf

from bert_tf2.common import text_inputs
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.common.text_model import TextModel
from bert_tf2.embedding import losses
from modeling import layers


@layers.serializable
class SentenceTextModel(TextModel):
  """`TextModel` of a `BertPreprocessor` and a `SentenceEncoder`."""

  def __init__(self, preprocessor, task, scale=20.0, **kwargs):
    super().__init__(preprocessor, task, **kwargs)
    self.scale = float(scale)
    self._accuracy = keras.metrics.Mean(name="in_batch_accuracy")

  def call(self, inputs, training=False):
    if isinstance(inputs, (tuple, list)):
      return tf.stack([self.task(self.task_features(
          self.preprocessor(side), training), training=training)
                       for side in inputs], axis=1)
    return self.run_task(
        self.task_features(self.preprocessor(inputs), training), training)

  def examples(self, x, what="x"):
    """x as `predict` takes it: a list of texts (a sentence encoder's one
    input contract on every Python path, `text_inputs.check_texts`; pairs
    are `fit`'s sides, not `predict`'s); a Dataset or Tensor as it is."""
    if isinstance(x, (tf.data.Dataset, tf.Tensor, tf.RaggedTensor)):
      return x
    return [t for t, _ in text_inputs.check_texts(x, what, pairs=False)]

  @property
  def metrics(self):
    metrics = keras.Model.metrics.fget(self)
    if getattr(self, "_compile_loss", None) is None:
      metrics = metrics + [self._accuracy]
    return metrics

  def original_loss(self, x, y, y_pred, sample_weight, training):
    """The ranking loss on (anchors, positives[, negatives]) sides."""
    del x, y, sample_weight, training  # The sides are in y_pred.
    if y_pred.shape.rank != 3:
      raise ValueError("fit/evaluate take x=(anchors, positives) or "
                       "(anchors, positives, negatives) and no y")
    anchors, positives = y_pred[:, 0], y_pred[:, 1]
    negatives = y_pred[:, 2] if y_pred.shape[1] == 3 else None
    loss = losses.multiple_negatives_ranking_loss(anchors, positives,
                                                  negatives, self.scale)
    # Candidate j of anchor i: positives first, then the negatives.
    candidates = tf.concat([positives] + ([] if negatives is None
                                          else [negatives]), axis=0)
    best = tf.argmax(losses.similarity_matrix(anchors, candidates), axis=-1,
                     output_type=tf.int32)
    self._accuracy.update_state(tf.cast(
        tf.equal(best, tf.range(tf.shape(anchors)[0])), tf.float32))
    return loss

  def get_config(self):
    config = super().get_config()
    config.update(scale=self.scale)
    return config


def build(cls, directory, max_seq_length=None, do_lower_case=None,
          scale=20.0, precision=None, **kwargs):
  """`SentenceTextModel` of `cls.from_dir(directory, ...)` (kwargs:
  pooling_mode, normalize; max_seq_length None: the directory's); scale:
  the ranking loss's (run_embedding.py's --scale); precision: from_dir's
  (`bert_tf2.models.text_model` passes the one it chose)."""
  encoder = cls.from_dir(directory, max_seq_length=max_seq_length,
                         do_lower_case=do_lower_case, precision=precision,
                         **kwargs)
  return wrap(encoder, scale)


def wrap(encoder, scale=20.0):
  """`SentenceTextModel` of `encoder` (weights shared, not copied) and a
  `BertPreprocessor` of its tokenizer's vocabulary and casing, cut to its
  max_seq_length."""
  preprocessor = BertPreprocessor(
      encoder.tokenizer.vocab_file,
      do_lower_case=encoder.tokenizer.basic_tokenizer.do_lower_case,
      max_seq_length=encoder.max_seq_length)
  return SentenceTextModel(preprocessor, encoder, scale=scale)
