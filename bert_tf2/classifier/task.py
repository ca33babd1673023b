"""ClassifierTask: the fine-tuning model, loss and metrics for the runner.

Loss, metrics and predictions as the original's model_fn (the loss is
`model.classifier_loss`, which the Keras `BertClassifier` trains on too):
  classification: mean softmax cross-entropy; eval_accuracy and eval_loss
    weighted by is_real_example (padding examples count for nothing);
    predictions {"probabilities", "logits"}.
  regression (STS-B): mean squared error of the single logit; eval_loss
    (MSE) and eval_pearson; predictions {"predictions", "logits"}.

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> task = ClassifierTask(cfg, num_labels=2)
  >>> model = task.build_model()
  >>> ids = tf.ones([3, 5], tf.int32)
  >>> f = {"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids,
  ...      "label_ids": tf.constant([0, 1, 1]), "is_real_example": ids[:, 0]}
  >>> loss, outputs = task.compute_loss(model, f, training=False)
  >>> loss.shape, outputs["probabilities"].shape
  (TensorShape([]), TensorShape([3, 2]))
"""

import keras
import tensorflow as tf

from bert_tf2.classifier import model as model_lib
from bert_tf2.common import task_model
from bert_tf2.runner.task import Task


class PearsonCorrelation(keras.metrics.Metric):
  """Streaming (weighted) Pearson correlation of predictions and labels."""

  def __init__(self, name="pearson", **kwargs):
    super().__init__(name=name, **kwargs)
    # float64 sums: sum(x^2) - sum(x)^2 / n cancels badly in float32 when
    # the predictions' spread is small next to their mean.
    self._sums = self.add_variable(shape=(6,), initializer="zeros",
                                   dtype="float64", name="sums")

  def update_state(self, y_true, y_pred, sample_weight=None):
    x = tf.cast(tf.reshape(y_pred, [-1]), tf.float64)
    y = tf.cast(tf.reshape(y_true, [-1]), tf.float64)
    w = (tf.ones_like(x) if sample_weight is None else
         tf.cast(tf.reshape(sample_weight, [-1]), tf.float64))
    update = tf.stack([tf.reduce_sum(w), tf.reduce_sum(w * x),
                       tf.reduce_sum(w * y), tf.reduce_sum(w * x * x),
                       tf.reduce_sum(w * y * y), tf.reduce_sum(w * x * y)])
    self._sums.assign_add(tf.cast(update, self._sums.dtype))

  def result(self):
    s = tf.cast(self._sums, tf.float64)
    n, sx, sy, sxx, syy, sxy = [s[i] for i in range(6)]
    cov = sxy - sx * sy / n
    var = tf.sqrt(tf.maximum(sxx - sx * sx / n, 0.0) *
                  tf.maximum(syy - sy * sy / n, 0.0))
    return tf.cast(tf.math.divide_no_nan(cov, var), tf.float32)

  def reset_state(self):
    self._sums.assign(tf.zeros_like(self._sums))


class ClassifierTask(Task):
  """Sentence (pair) classification or regression on BERT's pooled output."""

  def __init__(self, bert_config, num_labels, is_regression=False,
               use_one_hot_embeddings=False, classifier_dropout_prob=0.1):
    self.bert_config = bert_config
    self.is_regression = bool(is_regression)
    self.num_labels = 1 if is_regression else int(num_labels)
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.classifier_dropout_prob = classifier_dropout_prob

  def build_model(self):
    return model_lib.BertClassifier(self.bert_config, self.num_labels,
                          use_one_hot_embeddings=self.use_one_hot_embeddings,
                          classifier_dropout_prob=self.classifier_dropout_prob)

  def compute_loss(self, model, features, training):
    logits = model(features, training=training)
    loss, per_example_loss = model_lib.classifier_loss(
        logits, features["label_ids"], self.is_regression)
    outputs = model_lib.head_outputs(logits, self.is_regression)
    outputs["per_example_loss"] = per_example_loss
    return loss, outputs

  def create_metrics(self):
    metrics = {"eval_loss": keras.metrics.Mean(name="eval_loss")}
    if self.is_regression:
      metrics["eval_pearson"] = PearsonCorrelation(name="eval_pearson")
    else:
      metrics["eval_accuracy"] = keras.metrics.Mean(name="eval_accuracy")
    return metrics

  def update_metrics(self, metrics, features, outputs):
    weights = task_model.example_weights(features)
    metrics["eval_loss"].update_state(outputs["per_example_loss"],
                                      sample_weight=weights)
    if self.is_regression:
      metrics["eval_pearson"].update_state(features["label_ids"],
                                           outputs["predictions"],
                                           sample_weight=weights)
    else:
      metrics["eval_accuracy"].update_state(
          task_model.correct(outputs["logits"], features["label_ids"]),
          sample_weight=weights)

  def predict_outputs(self, model, features):
    logits = model(features, training=False)
    out = model_lib.head_outputs(logits, self.is_regression)
    for key in ("example_index", "is_real_example"):
      if key in features:
        out[key] = features[key]
    return out
