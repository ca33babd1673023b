"""`PretrainingTask`: the original run_pretraining model_fn as a runner Task.

Loss (as the original): masked-LM loss, sum(weight * nll) / (sum(weight) +
1e-5) over this replica's predictions, plus the next-sentence loss, the mean
nll over the batch (`--no_nsp`: the MLM loss alone).

Evaluation metrics (as the original metric_fn, accumulated over all eval
batches):
  masked_lm_accuracy      weighted by masked_lm_weights (padding ignored)
  masked_lm_loss          mean per-prediction nll weighted the same way
  next_sentence_accuracy  mean over examples
  next_sentence_loss      mean per-example nll
The runner adds "loss" (mean of the batch losses) and "global_step".

Training logs (`training_scalars`, averaged over the logged steps): the
batch's masked_lm_loss and masked_lm_accuracy (weighted as above) and, with
NSP, next_sentence_loss and next_sentence_accuracy, beside the total loss.

Example:
  >>> import modeling
  >>> cfg = modeling.BertConfig(vocab_size=40, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> task = PretrainingTask(cfg)
  >>> sorted(task.create_metrics())
  ['masked_lm_accuracy', 'masked_lm_loss', 'next_sentence_accuracy', 'next_sentence_loss']
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.pretraining import model as model_lib
from bert_tf2.runner import task as task_lib


class PretrainingTask(task_lib.Task):
  """Masked LM (+ next sentence prediction) pretraining."""

  def __init__(self, bert_config, use_nsp=True, use_one_hot_embeddings=False):
    self.bert_config = bert_config
    self.use_nsp = bool(use_nsp)
    self.use_one_hot_embeddings = bool(use_one_hot_embeddings)

  def build_model(self):
    return model_lib.PretrainingModel(
        self.bert_config, use_nsp=self.use_nsp,
        use_one_hot_embeddings=self.use_one_hot_embeddings)

  def compute_loss(self, model, features, training):
    logits = model(features, training=training)
    mlm_loss, mlm_example_loss, mlm_log_probs = modeling.masked_lm_loss(
        logits["masked_lm_logits"], features["masked_lm_ids"],
        features["masked_lm_weights"])
    outputs = {"masked_lm_example_loss": mlm_example_loss,
               "masked_lm_log_probs": mlm_log_probs}
    outputs["masked_lm_loss"] = mlm_loss
    outputs["masked_lm_accuracy"] = _accuracy(
        mlm_log_probs, features["masked_lm_ids"],
        features["masked_lm_weights"])
    loss = mlm_loss
    if self.use_nsp:
      nsp_loss, nsp_example_loss, nsp_log_probs = modeling.next_sentence_loss(
          logits["next_sentence_logits"], features["next_sentence_labels"])
      outputs.update(next_sentence_example_loss=nsp_example_loss,
                     next_sentence_log_probs=nsp_log_probs,
                     next_sentence_loss=nsp_loss,
                     next_sentence_accuracy=_accuracy(
                         nsp_log_probs, features["next_sentence_labels"]))
      loss = mlm_loss + nsp_loss
    return loss, outputs

  def training_scalars(self):
    names = ("masked_lm_loss", "masked_lm_accuracy")
    if self.use_nsp:
      names += ("next_sentence_loss", "next_sentence_accuracy")
    return names

  def create_metrics(self):
    names = ["masked_lm_accuracy", "masked_lm_loss"]
    if self.use_nsp:
      names += ["next_sentence_accuracy", "next_sentence_loss"]
    return {name: keras.metrics.Mean(name=name) for name in names}

  def update_metrics(self, metrics, features, outputs):
    weights = tf.reshape(features["masked_lm_weights"], [-1])
    ids = tf.reshape(features["masked_lm_ids"], [-1])
    predictions = tf.argmax(outputs["masked_lm_log_probs"], axis=-1,
                            output_type=tf.int32)
    correct = tf.cast(tf.equal(ids, predictions), tf.float32)
    metrics["masked_lm_accuracy"].update_state(correct, sample_weight=weights)
    metrics["masked_lm_loss"].update_state(
        tf.reshape(outputs["masked_lm_example_loss"], [-1]),
        sample_weight=weights)
    if self.use_nsp:
      labels = tf.reshape(features["next_sentence_labels"], [-1])
      nsp_predictions = tf.argmax(outputs["next_sentence_log_probs"],
                                  axis=-1, output_type=tf.int32)
      metrics["next_sentence_accuracy"].update_state(
          tf.cast(tf.equal(labels, nsp_predictions), tf.float32))
      metrics["next_sentence_loss"].update_state(
          outputs["next_sentence_example_loss"])

  def predict_outputs(self, model, features):
    logits = model(features, training=False)
    out = {"masked_lm_predictions": tf.argmax(
        logits["masked_lm_logits"], axis=-1, output_type=tf.int32)}
    if self.use_nsp:
      out["next_sentence_probabilities"] = tf.nn.softmax(
          logits["next_sentence_logits"], axis=-1)
    return out


def _accuracy(log_probs, labels, weights=None):
  """Weighted fraction of argmax(log_probs) == labels (a float32 scalar).

  Args:
    log_probs: float Tensor of shape [num_predictions, num_classes].
    labels: int Tensor with num_predictions elements.
    weights: float Tensor with num_predictions elements, or None (all 1).
  """
  labels = tf.reshape(tf.cast(labels, tf.int32), [-1])
  predictions = tf.argmax(log_probs, axis=-1, output_type=tf.int32)
  correct = tf.cast(tf.equal(labels, predictions), tf.float32)
  if weights is None:
    return tf.reduce_mean(correct)
  weights = tf.reshape(tf.cast(weights, tf.float32), [-1])
  return tf.math.divide_no_nan(tf.reduce_sum(correct * weights),
                               tf.reduce_sum(weights))
