"""NerTask: token-classification loss, metrics and predictions for the runner.

Loss: softmax cross-entropy of each first word piece (label_mask 1),
averaged over those pieces in the batch; the other pieces, [CLS], [SEP] and
padding count for nothing. Metrics (runner's evaluate): eval_loss and the
token accuracy of the masked pieces; entity-level F1 needs whole sentences
and is computed by the pipeline from predictions (metrics.py).
Predictions: {"label_predictions": int [seq], "example_index"}.
With crf=True (run_ner.py --crf): the CRF's negative log-likelihood per
window as the loss (and eval_loss), the Viterbi path as the predictions
and for the token accuracy (see model.py). The loss is `model.ner_loss`,
which the Keras `BertTokenClassifier` trains on too.

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> task = NerTask(cfg, num_labels=3)
  >>> model = task.build_model()
  >>> ids = tf.ones([2, 4], tf.int32)
  >>> f = {"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids,
  ...      "label_ids": 0 * ids, "label_mask": ids}
  >>> loss, outputs = task.compute_loss(model, f, training=False)
  >>> loss.shape, outputs["logits"].shape
  (TensorShape([]), TensorShape([2, 4, 3]))
"""

import keras

from bert_tf2.ner import model as model_lib
from bert_tf2.runner.task import Task


class NerTask(Task):
  """Per-token tagging on BERT's sequence output."""

  def __init__(self, bert_config, num_labels, use_one_hot_embeddings=False,
               classifier_dropout_prob=0.1, crf=False, allowed=None,
               crf_learning_rate_multiplier=1.0):
    self.bert_config = bert_config
    self.crf = bool(crf)
    self.allowed = allowed
    # Read by runner.estimator_from_flags: the CRF's own rate (crf/...).
    self.learning_rate_multipliers = (
        {"^crf/": float(crf_learning_rate_multiplier)} if self.crf else None)
    self.num_labels = int(num_labels)
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.classifier_dropout_prob = classifier_dropout_prob

  def build_model(self):
    return model_lib.BertTokenClassifier(
        self.bert_config, self.num_labels,
        use_one_hot_embeddings=self.use_one_hot_embeddings,
        classifier_dropout_prob=self.classifier_dropout_prob, crf=self.crf,
        allowed=self.allowed)

  def compute_loss(self, model, features, training):
    logits = model(features, training=training)
    loss, values, weights = model_lib.ner_loss(logits, features["label_ids"],
                                               features, model.crf)
    outputs = {"logits": logits, "loss_values": values,
               "loss_weights": weights}
    if not training:  # Evaluation: the tags for the accuracy.
      outputs["predictions"] = model.decode(features, logits)
    return loss, outputs

  def create_metrics(self):
    return {"eval_loss": keras.metrics.Mean(name="eval_loss"),
            "eval_token_accuracy": keras.metrics.Mean(
                name="eval_token_accuracy")}

  def update_metrics(self, metrics, features, outputs):
    metrics["eval_loss"].update_state(outputs["loss_values"],
                                      sample_weight=outputs["loss_weights"])
    correct, mask = model_lib.token_accuracy(
        outputs["predictions"], features["label_ids"], features["label_mask"])
    metrics["eval_token_accuracy"].update_state(correct, sample_weight=mask)

  def predict_outputs(self, model, features):
    logits = model(features, training=False)
    out = {"label_predictions": model.decode(features, logits)}
    if "example_index" in features:
      out["example_index"] = features["example_index"]
    return out
