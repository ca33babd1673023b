"""The NER model: BERT's sequence output -> per-token tag logits.

As the BERT paper's token tagging: dropout 0.1 on the final hidden states
(`classifier_dropout_prob`; 0 turns it off), then one linear layer
(`modeling.ClassificationHead` on every token); variables bert/... and
top-level `output_weights` [num_labels, hidden], `output_bias` [num_labels]
(the classifier's names and constructor).

Compiled without a loss (a `TaskModel`) it trains on run_ner.py's loss
(`ner_loss`) of "label_ids" and "label_mask" in the features, with the
masked token accuracy as a metric. See docs/keras.md.

With `crf=True` (run_ner.py --crf) a linear-chain CRF (`crf.CRF`,
variables crf/...) sits on the logits: the loss is its negative
log-likelihood; `call` still returns the logits (the CRF's emissions) and
`decode(features, logits)` gives the tags either way.

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> m = BertTokenClassifier(cfg, num_labels=5)
  >>> ids = tf.ones([2, 6], tf.int32)
  >>> m({"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids}).shape
  TensorShape([2, 6, 5])
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.classifier import model as classifier_model
from bert_tf2.common import InputError
from bert_tf2.common import task_model
from bert_tf2.ner import crf as crf_lib


def token_loss(logits, label_ids, label_mask):
  """Mean softmax cross-entropy over the tokens with label_mask 1.

  Args:
    logits: float Tensor [batch_size, seq_length, num_labels].
    label_ids: int Tensor [batch_size, seq_length].
    label_mask: int or float Tensor [batch_size, seq_length]; 1 for the
      first word piece of each word, 0 elsewhere (and on padding).

  Returns:
    (loss: float32 scalar, per_token_loss: float32 [batch_size,
    seq_length], mask: float32 [batch_size, seq_length]).
  """
  num_labels = logits.shape[-1]
  labels = tf.one_hot(label_ids, num_labels, dtype=tf.float32)
  per_token = -tf.reduce_sum(labels * tf.nn.log_softmax(logits), axis=-1)
  mask = tf.cast(label_mask, tf.float32)
  loss = tf.math.divide_no_nan(tf.reduce_sum(per_token * mask),
                               tf.reduce_sum(mask))
  return loss, per_token, mask


def crf_loss(crf, logits, label_ids, features):
  """The CRF's negative log-likelihood of the gold tags, per window.

  Args:
    crf: the model's `crf.CRF` layer.
    logits: float Tensor [batch_size, seq_length, num_labels] (emissions).
    label_ids: int Tensor [batch_size, seq_length].
    features: dict with int [batch_size, seq_length] "label_mask" (and
      "input_mask": see `crf.sentence_bounds`).

  Returns:
    (loss: float32 scalar, the mean over the windows with a labelled
    position; nll: float32 [batch_size]; weights: float32 [batch_size], 0
    for a window with no labelled position).
  """
  starts, ends = crf_lib.sentence_bounds(features)
  nll = -crf.log_likelihood(logits, features["label_mask"], label_ids,
                            starts, ends)
  weights = tf.cast(tf.reduce_any(
      tf.cast(features["label_mask"], tf.bool), axis=1), tf.float32)
  loss = tf.math.divide_no_nan(tf.reduce_sum(nll * weights),
                               tf.reduce_sum(weights))
  return loss, nll, weights


def ner_loss(logits, label_ids, features, crf=None):
  """run_ner.py's loss: `token_loss`, or `crf_loss` with a CRF layer `crf`
  (`BertTokenClassifier.crf`). Returns (loss, values, weights): the loss is
  the weighted mean of the values (per token, or per window with the CRF).
  """
  if crf is None:
    return token_loss(logits, label_ids, features["label_mask"])
  return crf_loss(crf, logits, label_ids, features)


def token_accuracy(predictions, label_ids, label_mask):
  """(correct, mask) of the masked token accuracy: float32 [batch_size,
  seq_length] each, of int [batch_size, seq_length] decoded `predictions`,
  `label_ids` and `label_mask`."""
  correct = tf.cast(tf.equal(tf.cast(predictions, tf.int32),
                             tf.cast(label_ids, tf.int32)), tf.float32)
  return correct, tf.cast(label_mask, tf.float32)


@modeling.layers.serializable
class BertTokenClassifier(classifier_model.BertClassifier):
  """BertClassifier's layers and config, the head on every token."""

  default_name = "bert_token_classifier"

  def __init__(self, bert_config, num_labels, crf=False, allowed=None,
               **kwargs):
    super().__init__(bert_config, num_labels, **kwargs)
    self.use_crf = bool(crf)
    self.crf = None
    if self.use_crf:
      self.crf = crf_lib.CRF(self.num_labels, allowed=allowed,
                             dtype="float32")
    elif allowed is not None:
      raise InputError("allowed: transition constraints need a CRF head "
                       "(crf=True); give crf=True or leave allowed out")

  @staticmethod
  def metrics_for(num_labels):
    del num_labels  # Token tagging always has the masked accuracy.
    return ("token_accuracy",)

  def call(self, features, training=False):
    """Returns logits, float32 [batch_size, seq_length, num_labels]."""
    sequence = self.encode(features, training=training)["sequence_output"]
    shape = tf.shape(sequence)
    logits = self.classifier(sequence, training=training)
    return tf.reshape(logits, [shape[0], shape[1], self.num_labels])

  def decode(self, features, logits):
    """Tag ids int32 [batch_size, seq_length]: the Viterbi path over the
    "label_mask" positions (0 elsewhere) with the CRF, else the argmax."""
    if not self.use_crf:
      return tf.argmax(logits, axis=-1, output_type=tf.int32)
    starts, ends = crf_lib.sentence_bounds(features)
    return self.crf.decode(logits, features["label_mask"], starts, ends)

  def task_loss(self, features, y, y_pred):
    """`ner_loss` on "label_ids" (or y) and "label_mask"."""
    label_ids = task_model.labels(features, y, "label_ids")
    task_model.labels(features, None, "label_mask")  # KeyError names it.
    loss, _, _ = ner_loss(y_pred, label_ids, features, self.crf)
    return loss, {"token_accuracy": token_accuracy(
        self.decode(features, y_pred), label_ids, features["label_mask"])}

  # --- run_ner.py's steps (`runner.ModelTask`) ----------------------------

  def loss_and_outputs(self, features, training=False):
    """(`ner_loss`, outputs): "logits", the loss's "loss_values" and
    "loss_weights", and in evaluation the decoded "predictions"."""
    logits = self(features, training=training)
    loss, values, weights = ner_loss(logits, features["label_ids"], features,
                                     self.crf)
    outputs = {"logits": logits, "loss_values": values,
               "loss_weights": weights}
    if not training:  # Evaluation: the tags for the accuracy.
      outputs["predictions"] = self.decode(features, logits)
    return loss, outputs

  def predict_outputs(self, features):
    """{"label_predictions": int32 [batch_size, seq_length]} (`decode`)."""
    return {"label_predictions": self.decode(
        features, self(features, training=False))}

  def eval_metrics(self):
    """eval_loss (the loss's values and weights) and eval_token_accuracy."""
    return {"eval_loss": keras.metrics.Mean(name="eval_loss"),
            "eval_token_accuracy": keras.metrics.Mean(
                name="eval_token_accuracy")}

  def update_eval_metrics(self, metrics, features, outputs):
    metrics["eval_loss"].update_state(outputs["loss_values"],
                                      sample_weight=outputs["loss_weights"])
    correct, mask = token_accuracy(outputs["predictions"],
                                   features["label_ids"],
                                   features["label_mask"])
    metrics["eval_token_accuracy"].update_state(correct, sample_weight=mask)

  def get_config(self):
    config = super().get_config()
    config.update(crf=self.use_crf,
                  allowed=self.crf.allowed if self.use_crf else None)
    return config
