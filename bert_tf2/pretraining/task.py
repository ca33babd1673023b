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
    loss = mlm_loss
    if self.use_nsp:
      nsp_loss, nsp_example_loss, nsp_log_probs = modeling.next_sentence_loss(
          logits["next_sentence_logits"], features["next_sentence_labels"])
      outputs.update(next_sentence_example_loss=nsp_example_loss,
                     next_sentence_log_probs=nsp_log_probs)
      loss = mlm_loss + nsp_loss
    return loss, outputs

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
