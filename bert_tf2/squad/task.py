"""`SquadTask`: SQuAD fine-tuning and prediction on `runner.Estimator`.

Loss: the mean over the batch of the softmax cross-entropy of the start
position plus that of the end position, divided by 2 (as the original;
`squad.model.span_loss`, which Keras `fit` of `SquadModel` uses too).
Predictions: "unique_ids", "start_logits", "end_logits" per feature, the
original's predict outputs.

Example:
  >>> task = SquadTask(bert_config)  # doctest: +SKIP
  >>> est = runner.Estimator(task, runner.RunConfig("/tmp/out"),
  ...                        optimizer_fn=...)  # doctest: +SKIP
"""

import tensorflow as tf

from bert_tf2 import runner
from bert_tf2.squad import model as squad_model


class SquadTask(runner.Task):
  """Span-prediction task.

  Args:
    bert_config: modeling.BertConfig.
    use_one_hot_embeddings: bool.
  """

  def __init__(self, bert_config, use_one_hot_embeddings=False):
    self.bert_config = bert_config
    self.use_one_hot_embeddings = use_one_hot_embeddings

  def build_model(self):
    return squad_model.SquadModel(
        self.bert_config, use_one_hot_embeddings=self.use_one_hot_embeddings)

  def compute_loss(self, model, features, training):
    """(start CE + end CE) / 2, each a mean over the batch."""
    start_logits, end_logits = model(features, training=training)
    loss = squad_model.span_loss(start_logits, end_logits,
                                 features["start_positions"],
                                 features["end_positions"])
    return loss, {"start_logits": start_logits, "end_logits": end_logits}

  def create_metrics(self):
    import keras  # pylint: disable=g-import-not-at-top
    return {"start_accuracy": keras.metrics.Accuracy(),
            "end_accuracy": keras.metrics.Accuracy()}

  def update_metrics(self, metrics, features, outputs):
    for name in ("start", "end"):
      predicted = tf.argmax(outputs[name + "_logits"], axis=-1,
                            output_type=tf.int32)
      metrics[name + "_accuracy"].update_state(
          tf.cast(features[name + "_positions"], tf.int32), predicted)

  def predict_outputs(self, model, features):
    start_logits, end_logits = model(features, training=False)
    return {"unique_ids": features["unique_ids"],
            "start_logits": start_logits, "end_logits": end_logits}
