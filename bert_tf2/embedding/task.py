"""BiEncoderTask: run_embedding.py's model and loss for the runner.

One `SentenceEncoder` (shared weights) encodes the anchors, positives and
optional hard negatives of a batch (features "anchor_input_ids", ...,
"negative_segment_ids"); the loss is the multiple-negatives ranking loss
(`losses.multiple_negatives_ranking_loss`, in-batch negatives, scale 20).
Eval: eval_loss and eval_in_batch_accuracy (anchor's best candidate in the
batch is its positive).

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> task = BiEncoderTask(cfg)
  >>> ids = tf.ones([3, 5], tf.int32)
  >>> f = {"%s_%s" % (s, k): ids for s in ("anchor", "positive")
  ...      for k in ("input_ids", "input_mask", "segment_ids")}
  >>> loss, out = task.compute_loss(task.build_model(), f, training=False)
  >>> round(float(loss), 4)   # identical texts: log(3)
  1.0986
"""

import keras

from bert_tf2.embedding import losses
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.runner.task import Task


def side_features(features, side):
  """The encoder features of one side ("anchor", "positive", "negative")."""
  return {k: features["%s_%s" % (side, k)]
          for k in ("input_ids", "input_mask", "segment_ids")}


class BiEncoderTask(Task):
  """Multiple-negatives ranking loss on a shared sentence encoder."""

  def __init__(self, bert_config, pooling_mode="mean", normalize=True,
               scale=20.0):
    self.bert_config = bert_config
    self.pooling_mode = pooling_mode
    self.normalize = normalize
    self.scale = float(scale)

  def build_model(self):
    return SentenceEncoder(self.bert_config, self.pooling_mode,
                           self.normalize)

  def compute_loss(self, model, features, training):
    anchors = model(side_features(features, "anchor"), training=training)
    positives = model(side_features(features, "positive"), training=training)
    negatives = None
    if "negative_input_ids" in features:
      negatives = model(side_features(features, "negative"),
                        training=training)
    loss = losses.multiple_negatives_ranking_loss(anchors, positives,
                                                  negatives, self.scale)
    return loss, {"loss": loss, "correct": losses.in_batch_correct(
        anchors, positives, negatives)}

  def create_metrics(self):
    return {"eval_loss": keras.metrics.Mean(name="eval_loss"),
            "eval_in_batch_accuracy": keras.metrics.Mean(
                name="eval_in_batch_accuracy")}

  def update_metrics(self, metrics, features, outputs):
    metrics["eval_loss"].update_state(outputs["loss"])
    metrics["eval_in_batch_accuracy"].update_state(outputs["correct"])

  def predict_outputs(self, model, features):
    return {"embeddings": model(features, training=False)}
