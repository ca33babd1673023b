"""The fine-tuning model: BERT's pooled output -> ClassificationHead.

Same computation and variable names as the original's `create_model`:
bert/... for the encoder, top-level `output_weights` [num_labels, hidden]
and `output_bias` [num_labels], dropout 0.1 on the pooled output in training
(`classifier_dropout_prob`: the original hard-codes 0.1; 0 turns it off).
For regression (STS-B) num_labels is 1 and the logit is the prediction.

Compiled without a loss (a `TaskModel`) it trains on `classifier_loss`
(`multi_label_loss`) of "label_ids" in the features. See docs/keras.md.

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> m = BertClassifier(cfg, num_labels=3)
  >>> ids = tf.ones([2, 5], tf.int32)
  >>> m({"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids}).shape
  TensorShape([2, 3])
  >>> sorted(modeling.original_variable_names(m))[-2:]
  ['output_bias', 'output_weights']
"""

import functools

import keras
import tensorflow as tf

import modeling
from bert_tf2.classifier import metrics as metrics_lib
from bert_tf2.common import InputError
from bert_tf2.common import task_model
from modeling import inputs as model_inputs


def classifier_loss(logits, label_ids, regression=False):
  """run_classifier.py's loss: mean over the batch of the softmax
  cross-entropy, or for regression of the squared error of the one logit.

  Args:
    logits: float32 Tensor of shape [batch_size, num_labels] (num_labels 1
      for regression).
    label_ids: Tensor of shape [batch_size] (or [batch_size, 1]): int class
      ids, or the float targets for regression.

  Returns:
    (loss: float32 scalar, per_example_loss: float32 Tensor of shape
    [batch_size]).

  Example:
    >>> loss, per_example = classifier_loss(tf.zeros([2, 3]), [0, 2])
    >>> round(float(loss), 4), per_example.shape   # log(3)
    (1.0986, TensorShape([2]))
  """
  labels = tf.reshape(label_ids, [-1])
  if regression:
    per_example_loss = tf.square(logits[:, 0] - tf.cast(labels, tf.float32))
    return tf.reduce_mean(per_example_loss), per_example_loss
  loss, per_example_loss, _ = modeling.classification_loss(
      logits, labels, logits.shape[-1])
  return loss, per_example_loss


def multi_label_loss(logits, label_ids):
  """Multi-label loss: sigmoid cross-entropy, mean over labels and examples.

  Args:
    logits: float32 Tensor of shape [batch_size, num_labels].
    label_ids: 0/1 Tensor of shape [batch_size, num_labels] (multi-hot).

  Returns:
    (loss: float32 scalar, per_example_loss: float32 Tensor of shape
    [batch_size], the mean over the labels).
  """
  per_label = tf.nn.sigmoid_cross_entropy_with_logits(
      labels=tf.cast(label_ids, tf.float32), logits=logits)
  per_example_loss = tf.reduce_mean(per_label, axis=-1)
  return tf.reduce_mean(per_example_loss), per_example_loss


def exact_match(label_ids, predicted):
  """float32 [batch_size]: 1.0 where every label is right (0/1 label_ids
  and bool predicted: [batch_size, num_labels])."""
  return tf.cast(tf.reduce_all(tf.equal(tf.cast(label_ids, tf.bool),
                                        predicted), axis=-1), tf.float32)


class class_or_instance_method(object):  # pylint: disable=invalid-name
  """A method bound to the instance it is read from, else to the class."""

  def __init__(self, fn):
    self.fn = fn
    self.__doc__ = fn.__doc__

  def __get__(self, instance, owner):
    return functools.partial(self.fn, owner if instance is None else instance)


def check_threshold(threshold, multi_label):
  """A multi-label model's `threshold` as a float in (0, 1), or InputError.

    >>> check_threshold(0.3, True)
    0.3
  """
  if not multi_label:
    raise InputError("threshold=%r: only a multi-label model "
                     "(multi_label=True) decides by a threshold" % (threshold,))
  try:
    value = float(threshold)
  except (TypeError, ValueError):
    value = float("nan")
  if not 0.0 < value < 1.0:
    raise InputError("threshold=%r: expected a probability strictly between "
                     "0 and 1" % (threshold,))
  return value


@modeling.layers.serializable
class BertClassifier(task_model.TaskModel):
  """BertModel + ClassificationHead; call(features) -> float32 logits."""

  default_name = "bert_classifier"

  def __init__(self, bert_config, num_labels, use_one_hot_embeddings=False,
               classifier_dropout_prob=0.1,
               attention_layout=modeling.attention.DEFAULT_ATTENTION_LAYOUT,
               multi_label=False, threshold=None, **kwargs):
    kwargs.setdefault("name", self.default_name)
    self.multi_label = bool(multi_label)
    if threshold is not None:  # Else the class's (below).
      self.threshold = check_threshold(threshold, self.multi_label)
    self.metric_names = (("exact_match",) if self.multi_label else
                         self.metrics_for(int(num_labels)))
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    self.bert_config = bert_config
    self.num_labels = int(num_labels)
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.classifier_dropout_prob = float(classifier_dropout_prob)
    self.attention_layout = attention_layout  # See modeling.BertModel.
    self.bert = modeling.BertModel(
        bert_config, use_one_hot_embeddings=use_one_hot_embeddings,
        attention_layout=attention_layout, dtype=self.dtype_policy)
    self.classifier = modeling.ClassificationHead(
        bert_config, self.num_labels,
        dropout_prob=self.classifier_dropout_prob, dtype=self.dtype_policy)
    self.built = True  # All variables exist.

  def encode(self, features, training=False):
    """The encoder's outputs (BertModel's dict) for `features`, a dict with
    int [batch_size, seq_length] "input_ids", "input_mask", "segment_ids"."""
    return self.bert(model_inputs.encoder_inputs(features), training=training)

  def call(self, features, training=False):
    """Returns logits, float32 [batch_size, num_labels] (features: `encode`)."""
    # The head reads the pooled output alone: the last layer is computed
    # at [CLS] alone (BertModel's pooled_only), in training and inference.
    outputs = self.bert(model_inputs.encoder_inputs(features),
                        training=training, pooled_only=True)
    return self.classifier(outputs["pooled_output"], training=training)

  serving_output_names = ("logits",)

  # A multi-label model predicts a label at probability >= threshold (the
  # default; the constructor's `threshold` sets a model's own).
  threshold = 0.5

  @class_or_instance_method
  def predicted(self, probabilities):
    """The labels a multi-label model predicts: bool, the shape of
    `probabilities`; on the class, at the class's threshold."""
    return probabilities >= self.threshold

  def head_outputs(self, logits):
    """The head's answers from its logits.

    Args:
      logits: float Tensor [batch, num_labels].

    Returns:
      dict: "logits", and "predictions" float [batch] (regression),
      "probabilities" float [batch, num_labels] (the softmax) or, for a
      multi-label model, "probabilities" (per-label sigmoids) and
      "predicted" bool [batch, num_labels] (`predicted`).

    Example:
      >>> import modeling
      >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
      ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
      >>> m = BertClassifier(cfg, num_labels=2)
      >>> m.head_outputs(tf.constant([[0.0, 0.0]]))["probabilities"].numpy()
      array([[0.5, 0.5]], dtype=float32)
      >>> out = BertClassifier(cfg, 2, multi_label=True).head_outputs(
      ...     tf.constant([[0.0, -1.0]]))
      >>> out["predicted"].numpy().tolist()
      [[True, False]]
    """
    if self.regression:
      return {"logits": logits, "predictions": logits[:, 0]}
    if self.multi_label:
      probabilities = tf.sigmoid(logits)
      return {"logits": logits, "probabilities": probabilities,
              "predicted": self.predicted(probabilities)}
    return {"logits": logits,
            "probabilities": tf.nn.softmax(logits, axis=-1)}

  @staticmethod
  def metrics_for(num_labels):
    """Names of the metrics the model reports when compiled without a loss."""
    return ("accuracy",) if num_labels > 1 else ()

  def task_loss(self, features, y, y_pred):
    """`head_loss` on "label_ids" (or y), + the accuracy metric."""
    label_ids = task_model.labels(features, y, "label_ids")
    weights = task_model.example_weights(features)
    loss, _ = self.head_loss(y_pred, label_ids)
    if self.multi_label:
      return loss, {"exact_match": (exact_match(
          label_ids, self.head_outputs(y_pred)["predicted"]), weights)}
    if self.regression:
      return loss, {}
    return loss, {"accuracy": (task_model.correct(y_pred, label_ids),
                               weights)}

  # --- run_classifier.py's steps (`runner.ModelTask`) ---------------------

  @property
  def regression(self):
    """One output, the predicted value (STS-B): num_labels 1, one label."""
    return self.num_labels == 1 and not self.multi_label

  def head_loss(self, logits, label_ids):
    """(loss, per_example_loss): `multi_label_loss` or `classifier_loss`."""
    if self.multi_label:
      return multi_label_loss(logits, label_ids)
    return classifier_loss(logits, label_ids, self.regression)

  def loss_and_outputs(self, features, training=False):
    """(`head_loss` on "label_ids", outputs): `head_outputs` and float32
    [batch_size] "per_example_loss"."""
    return self.logits_loss_and_outputs(self(features, training=training),
                                        features["label_ids"])

  def logits_loss_and_outputs(self, logits, label_ids):
    """`loss_and_outputs` of logits float32 [batch, num_labels] against
    label_ids [batch] (multi-label: [batch, num_labels])."""
    loss, per_example = self.head_loss(logits, label_ids)
    outputs = self.head_outputs(logits)
    outputs["per_example_loss"] = per_example
    return loss, outputs

  def logits_eval_results(self, logits, label_ids):
    """eval_results.txt's metrics ({name: float} of `eval_metrics`) of
    logits computed outside the model (e.g. a document's windows' mean).

    Args:
      logits: float [examples, num_labels] (NumPy or Tensor).
      label_ids: [examples]: class ids, or the targets for regression.

    Example:
      >>> import modeling
      >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
      ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
      >>> out = BertClassifier(cfg, 2).logits_eval_results(
      ...     [[0.0, 1.0], [2.0, 0.0], [0.0, 3.0]], [1, 0, 0])
      >>> round(out["eval_accuracy"], 4), round(out["eval_loss"], 4)
      (0.6667, 1.1629)
    """
    features = {"label_ids": tf.convert_to_tensor(label_ids)}
    _, outputs = self.logits_loss_and_outputs(
        tf.cast(logits, tf.float32), features["label_ids"])
    metrics = self.eval_metrics()
    self.update_eval_metrics(metrics, features, outputs)
    return {name: float(metric.result()) for name, metric in metrics.items()}

  def predict_outputs(self, features):
    """`head_outputs` of the logits of `features`."""
    return self.head_outputs(self(features, training=False))

  def eval_metrics(self):
    """eval_results.txt's metrics, as the original's metric_fn: eval_loss
    and eval_accuracy (eval_pearson for regression), weighted by
    is_real_example. Multi-label: eval_exact_match and the micro-averaged
    precision, recall and F1 of the decisions of `predicted`."""
    metrics = {"eval_loss": keras.metrics.Mean(name="eval_loss")}
    if self.multi_label:
      # Given the 0/1 decisions, which any threshold in (0, 1) keeps.
      metrics.update(
          eval_exact_match=keras.metrics.Mean(name="eval_exact_match"),
          eval_micro_precision=keras.metrics.Precision(
              thresholds=self.threshold, name="eval_micro_precision"),
          eval_micro_recall=keras.metrics.Recall(
              thresholds=self.threshold, name="eval_micro_recall"),
          eval_micro_f1=keras.metrics.F1Score(
              average="micro", threshold=self.threshold,
              name="eval_micro_f1"))
    elif self.regression:
      metrics["eval_pearson"] = metrics_lib.PearsonCorrelation(
          name="eval_pearson")
    else:
      metrics["eval_accuracy"] = keras.metrics.Mean(name="eval_accuracy")
    return metrics

  def update_eval_metrics(self, metrics, features, outputs):
    """Adds one batch (`loss_and_outputs`' outputs) to `eval_metrics()`."""
    weights = task_model.example_weights(features)
    metrics["eval_loss"].update_state(outputs["per_example_loss"],
                                      sample_weight=weights)
    labels = features["label_ids"]
    if self.multi_label:
      labels = tf.cast(labels, tf.float32)
      metrics["eval_exact_match"].update_state(
          exact_match(labels, outputs["predicted"]), sample_weight=weights)
      decisions = tf.cast(outputs["predicted"], tf.float32)
      for name in ("eval_micro_precision", "eval_micro_recall",
                   "eval_micro_f1"):
        metrics[name].update_state(labels, decisions)
    elif self.regression:
      metrics["eval_pearson"].update_state(labels, outputs["predictions"],
                                           sample_weight=weights)
    else:
      metrics["eval_accuracy"].update_state(
          task_model.correct(outputs["logits"], labels),
          sample_weight=weights)

  def get_config(self):
    config = self.base_config()
    config.update(bert_config=self.bert_config.to_dict(),
                  num_labels=self.num_labels,
                  use_one_hot_embeddings=self.use_one_hot_embeddings,
                  classifier_dropout_prob=self.classifier_dropout_prob,
                  attention_layout=self.attention_layout)
    if self.multi_label:  # Absent otherwise: older .keras configs load.
      config["multi_label"] = True
      config["threshold"] = float(self.threshold)
    return config
