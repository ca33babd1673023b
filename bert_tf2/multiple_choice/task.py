"""MultipleChoiceTask: model, loss and metrics of run_multiple_choice.py for
the runner (`bert_tf2.runner.Task`).

Loss: mean softmax cross-entropy over the choices
(`model.multiple_choice_loss`, which the Keras `BertMultipleChoice` trains
on too). Eval: eval_accuracy and
eval_loss. Predictions: probabilities and logits [batch, num_choices].

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> task = MultipleChoiceTask(cfg)
  >>> ids = tf.ones([2, 4, 5], tf.int32)
  >>> f = {"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids,
  ...      "label_ids": tf.constant([0, 3])}
  >>> loss, out = task.compute_loss(task.build_model(), f, training=False)
  >>> out["probabilities"].shape
  TensorShape([2, 4])
"""

import keras
import tensorflow as tf

from bert_tf2.common import task_model
from bert_tf2.multiple_choice import model as model_lib
from bert_tf2.runner.task import Task


class MultipleChoiceTask(Task):
  """One [CLS] score per (context, choice) pair, softmax over choices."""

  def __init__(self, bert_config, use_one_hot_embeddings=False,
               classifier_dropout_prob=0.1):
    self.bert_config = bert_config
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.classifier_dropout_prob = classifier_dropout_prob

  def build_model(self):
    return model_lib.BertMultipleChoice(
        self.bert_config, use_one_hot_embeddings=self.use_one_hot_embeddings,
        classifier_dropout_prob=self.classifier_dropout_prob)

  def compute_loss(self, model, features, training):
    logits = model(features, training=training)
    loss, per_example, probabilities = model_lib.multiple_choice_loss(
        logits, features["label_ids"])
    return loss, {"logits": logits, "probabilities": probabilities,
                  "per_example_loss": per_example}

  def create_metrics(self):
    return {"eval_loss": keras.metrics.Mean(name="eval_loss"),
            "eval_accuracy": keras.metrics.Mean(name="eval_accuracy")}

  def update_metrics(self, metrics, features, outputs):
    weights = task_model.example_weights(features)  # Padding (TPU): 0.
    metrics["eval_loss"].update_state(outputs["per_example_loss"],
                                      sample_weight=weights)
    metrics["eval_accuracy"].update_state(
        task_model.correct(outputs["logits"], features["label_ids"]),
        sample_weight=weights)

  def predict_outputs(self, model, features):
    logits = model(features, training=False)
    out = {"logits": logits, "probabilities": tf.nn.softmax(logits, axis=-1)}
    if "is_real_example" in features:
      out["is_real_example"] = features["is_real_example"]
    return out
