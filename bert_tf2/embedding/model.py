"""`BiEncoder`: run_embedding.py's model, a `SentenceEncoder` that carries
its training maths.

One encoder encodes the anchors, positives and optional hard negatives of
a batch (features "anchor_input_ids", ..., "negative_segment_ids"); the
loss is `losses.multiple_negatives_ranking_loss`. Evaluation: eval_loss
and eval_in_batch_accuracy. Predictions: "embeddings" of one side.

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> ids = tf.ones([3, 5], tf.int32)
  >>> f = {"%s_%s" % (s, k): ids for s in ("anchor", "positive")
  ...      for k in ("input_ids", "input_mask", "segment_ids")}
  >>> loss, out = BiEncoder(cfg).loss_and_outputs(f)
  >>> round(float(loss), 4)   # identical texts: log(3)
  1.0986
"""

import keras

import modeling
from bert_tf2.embedding import losses
from bert_tf2.embedding.encoder import SentenceEncoder


def side_features(features, side):
  """The encoder features of one side ("anchor", "positive", "negative")."""
  return {k: features["%s_%s" % (side, k)]
          for k in ("input_ids", "input_mask", "segment_ids")}


@modeling.layers.serializable
class BiEncoder(SentenceEncoder):
  """SentenceEncoder + the ranking loss; scale multiplies the cosines."""

  def __init__(self, bert_config, pooling_mode="mean", normalize=True,
               scale=20.0, **kwargs):
    super().__init__(bert_config, pooling_mode, normalize, **kwargs)
    self.scale = float(scale)

  def loss_and_outputs(self, features, training=False):
    """(the ranking loss, outputs "loss" and "correct" float32 [batch])."""
    vectors = {side: self(side_features(features, side), training=training)
               for side in ("anchor", "positive", "negative")
               if "%s_input_ids" % side in features}
    args = (vectors["anchor"], vectors["positive"], vectors.get("negative"))
    loss = losses.multiple_negatives_ranking_loss(*args, scale=self.scale)
    return loss, {"loss": loss, "correct": losses.in_batch_correct(*args)}

  def predict_outputs(self, features):
    """{"embeddings": float32 [batch_size, hidden_size]}."""
    return {"embeddings": self(features, training=False)}

  def eval_metrics(self):
    """eval_loss (mean of the batch losses), eval_in_batch_accuracy."""
    return {"eval_loss": keras.metrics.Mean(name="eval_loss"),
            "eval_in_batch_accuracy": keras.metrics.Mean(
                name="eval_in_batch_accuracy")}

  def update_eval_metrics(self, metrics, features, outputs):
    del features
    metrics["eval_loss"].update_state(outputs["loss"])
    metrics["eval_in_batch_accuracy"].update_state(outputs["correct"])

  def training_scalars(self):
    return ()

  def get_config(self):
    config = super().get_config()
    config["scale"] = self.scale
    return config
