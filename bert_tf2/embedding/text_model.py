"""`SentenceTextModel`: raw sentences -> embeddings; fit on text pairs.

* `predict(texts)` / `model(texts)`: float32 [n, hidden_size] sentence
  vectors (`SentenceEncoder.encode(texts)` runs this model: `wrap(encoder)`).
* `fit(x=(anchors, positives))` or `(anchors, positives, negatives)`, no
  y: run_embedding.py's multiple-negatives ranking loss (`scale` 20), with
  metric `in_batch_accuracy`; `evaluate` the same. `model((a, b[, c]))`
  gives [batch, sides, hidden_size] (what the loss reads).

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
    """x as `predict` takes it: a list of texts (`text_inputs.check_texts`,
    no pairs); a Dataset or Tensor as it is."""
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
    self._accuracy.update_state(
        losses.in_batch_correct(anchors, positives, negatives))
    return loss

  def get_config(self):
    config = super().get_config()
    config.update(scale=self.scale)
    return config


def build(cls, directory, max_seq_length=None, do_lower_case=None,
          scale=20.0, precision=None, **kwargs):
  """`SentenceTextModel` of `cls.from_dir(directory, ...)` (kwargs:
  pooling_mode, normalize); scale: run_embedding.py's --scale."""
  encoder = cls.from_dir(directory, max_seq_length=max_seq_length,
                         do_lower_case=do_lower_case, precision=precision,
                         **kwargs)
  return wrap(encoder, scale)


def wrap(encoder, scale=20.0):
  """`SentenceTextModel` of `encoder` (weights shared) and a
  `BertPreprocessor` of its tokenizer, cut to its max_seq_length."""
  preprocessor = BertPreprocessor(
      encoder.tokenizer.vocab_file,
      do_lower_case=encoder.tokenizer.basic_tokenizer.do_lower_case,
      max_seq_length=encoder.max_seq_length)
  return SentenceTextModel(preprocessor, encoder, scale=scale)
