"""The multiple-choice model: one [CLS] score per (context, choice) pair.

As in the BERT paper (SWAG): the features [batch_size, num_choices,
seq_length] are flattened to [batch_size * num_choices, seq_length], BERT's
pooled output of each pair goes through a linear layer with ONE output
(`output_weights` [1, hidden] and `output_bias` [1], the original
classifier's names), and the scores are reshaped to logits [batch_size,
num_choices]; the loss is the softmax cross-entropy over the choices.

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> m = BertMultipleChoice(cfg)
  >>> ids = tf.ones([2, 3, 5], tf.int32)
  >>> m({"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids}).shape
  TensorShape([2, 3])
  >>> m.classifier.output_weights.shape
  TensorShape([1, 8])
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.common import task_model
from bert_tf2.multiple_choice.features import FEATURE_NAMES
from modeling import inputs as model_inputs


def choice_logits(pair_scores, num_choices):
  """float [batch * num_choices, 1] -> logits [batch, num_choices].

  Example:
    >>> choice_logits(tf.constant([[1.], [2.], [3.], [4.]]), 2).numpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)
  """
  return tf.reshape(pair_scores, [-1, num_choices])


def multiple_choice_loss(logits, labels):
  """Softmax cross-entropy over the choices, mean over the batch.

  Args:
    logits: float32 Tensor of shape [batch_size, num_choices].
    labels: int Tensor of shape [batch_size] (or [batch_size, 1]), the
      index of the right choice.

  Returns:
    (loss: float32 scalar, per_example_loss: float32 [batch_size],
    probabilities: float32 [batch_size, num_choices]).
  """
  labels = tf.reshape(labels, [-1])
  log_probs = tf.nn.log_softmax(logits, axis=-1)
  per_example = -tf.gather(log_probs, tf.cast(labels, tf.int32), axis=1,
                           batch_dims=1)
  return tf.reduce_mean(per_example), per_example, tf.exp(log_probs)


@modeling.layers.serializable
class BertMultipleChoice(task_model.TaskModel):
  """BertModel + one-output head per pair; call(features) -> logits."""

  default_name = "bert_multiple_choice"
  metric_names = ("accuracy",)
  serving_output_names = ("logits",)

  def __init__(self, bert_config, use_one_hot_embeddings=False,
               classifier_dropout_prob=0.1, **kwargs):
    kwargs.setdefault("name", self.default_name)
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    self.bert_config = bert_config
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.classifier_dropout_prob = float(classifier_dropout_prob)
    self.bert = modeling.BertModel(
        bert_config, use_one_hot_embeddings=use_one_hot_embeddings,
        dtype=self.dtype_policy)
    self.classifier = modeling.ClassificationHead(
        bert_config, 1, dropout_prob=self.classifier_dropout_prob,
        dtype=self.dtype_policy)
    self.built = True

  def call(self, features, training=False):
    """int [batch, num_choices, seq] features -> float32 [batch, choices]."""
    flat = {k: tf.reshape(features[k], [-1, tf.shape(features[k])[-1]])
            for k in FEATURE_NAMES}
    num_choices = tf.shape(features["input_ids"])[1]
    outputs = self.bert(model_inputs.encoder_inputs(flat), training=training,
                        pooled_only=True)  # See BertClassifier.call.
    scores = self.classifier(outputs["pooled_output"], training=training)
    return choice_logits(scores, num_choices)

  def task_loss(self, features, y, y_pred):
    """`multiple_choice_loss` on "label_ids" (or y), + accuracy."""
    labels = task_model.labels(features, y, "label_ids")
    loss, _, _ = multiple_choice_loss(y_pred, labels)
    return loss, {"accuracy": (task_model.correct(y_pred, labels),
                               task_model.example_weights(features))}

  # --- run_multiple_choice.py's steps (`runner.ModelTask`) ---------------

  def loss_and_outputs(self, features, training=False):
    """(`multiple_choice_loss`, outputs "logits" and "per_example_loss")."""
    logits = self(features, training=training)
    loss, per_example, _ = multiple_choice_loss(logits, features["label_ids"])
    return loss, {"logits": logits, "per_example_loss": per_example}

  def predict_outputs(self, features, logits=None):
    """"logits" and softmax "probabilities", float32 [batch, choices] (of
    `features`, or of `logits`: the SavedModel's answers too)."""
    if logits is None:
      logits = self(features, training=False)
    return {"logits": logits, "probabilities": tf.nn.softmax(logits, axis=-1)}

  def eval_metrics(self):
    """eval_loss and eval_accuracy, weighted by is_real_example."""
    return {"eval_loss": keras.metrics.Mean(name="eval_loss"),
            "eval_accuracy": keras.metrics.Mean(name="eval_accuracy")}

  def update_eval_metrics(self, metrics, features, outputs):
    weights = task_model.example_weights(features)  # Padding (TPU): 0.
    metrics["eval_loss"].update_state(outputs["per_example_loss"],
                                      sample_weight=weights)
    metrics["eval_accuracy"].update_state(
        task_model.correct(outputs["logits"], features["label_ids"]),
        sample_weight=weights)

  def get_config(self):
    config = self.base_config()
    config.update(bert_config=self.bert_config.to_dict(),
                  use_one_hot_embeddings=self.use_one_hot_embeddings,
                  classifier_dropout_prob=self.classifier_dropout_prob)
    return config
