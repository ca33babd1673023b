"""The pretraining model: BERT encoder + masked-LM head + next-sentence head.

Same variables (bert/..., cls/predictions/..., cls/seq_relationship/...),
names and maths as the original `run_pretraining.py`; with `use_nsp=False`
(`--no_nsp`) there is no NSP head. A `TaskModel`: compiled without a loss it
trains on the original loss from the features (docs/keras.md), and it is
run_pretraining.py's `runner.ModelTask`.

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=40, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> model = PretrainingModel(cfg)
  >>> out = model({"input_ids": tf.ones([2, 6], tf.int32),
  ...              "input_mask": tf.ones([2, 6], tf.int32),
  ...              "segment_ids": tf.zeros([2, 6], tf.int32),
  ...              "masked_lm_positions": tf.constant([[1, 2], [3, 0]])})
  >>> out["masked_lm_logits"].shape, out["next_sentence_logits"].shape
  (TensorShape([2, 2, 40]), TensorShape([2, 2]))
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.common import task_model
from modeling import inputs as model_inputs


@modeling.layers.serializable
class PretrainingModel(task_model.TaskModel):
  """Keras model computing the MLM and NSP logits of a features batch."""

  def __init__(self, config, use_nsp=True, use_one_hot_embeddings=False,
               **kwargs):
    kwargs.setdefault("name", "bert_pretraining")
    self.metric_names = ("masked_lm_loss", "masked_lm_accuracy")
    if use_nsp:
      self.metric_names += ("next_sentence_loss", "next_sentence_accuracy")
    super().__init__(**kwargs)
    if isinstance(config, dict):
      config = modeling.BertConfig.from_dict(config)
    self.config = config
    self.use_nsp = bool(use_nsp)
    self.use_one_hot_embeddings = bool(use_one_hot_embeddings)
    self.bert = modeling.BertModel(
        config, use_one_hot_embeddings=use_one_hot_embeddings,
        dtype=self.dtype_policy)
    self.masked_lm = modeling.MaskedLMHead(config, dtype=self.dtype_policy)
    self.next_sentence = (
        modeling.NextSentenceHead(config, dtype=self.dtype_policy)
        if self.use_nsp else None)
    self.built = True

  def call(self, features, training=False):
    """Runs the model.

    Args:
      features: dict with int Tensors "input_ids", "input_mask",
        "segment_ids" [batch_size, seq_length] and "masked_lm_positions"
        [batch_size, max_predictions_per_seq].
      training: bool, apply dropout.

    Returns:
      dict with float32 "masked_lm_logits" [batch_size,
      max_predictions_per_seq, vocab_size], "next_sentence_logits"
      [batch_size, 2] (unless use_nsp=False), "sequence_output" and
      "pooled_output".
    """
    out = self.bert(model_inputs.encoder_inputs(features),
                    training=training)
    result = {
        "masked_lm_logits": self.masked_lm(
            out["sequence_output"], features["masked_lm_positions"],
            self.bert.get_embedding_table()),
        "sequence_output": out["sequence_output"],
        "pooled_output": out["pooled_output"],
    }
    if self.next_sentence is not None:
      result["next_sentence_logits"] = self.next_sentence(
          out["pooled_output"])
    return result

  serving_feature_names = ("input_ids", "input_mask", "segment_ids",
                           "masked_lm_positions")

  def task_loss(self, features, y, y_pred):
    """Masked-LM loss (+ next-sentence loss), as run_pretraining.py."""
    del y  # The labels are features.
    loss, _, parts = self._loss_parts(features, y_pred)
    return loss, parts

  def _loss_parts(self, features, y_pred):
    """(loss, {metric: the batch's value}, {metric: (values, weights)})."""
    ids = features["masked_lm_ids"]
    weights = tf.cast(features["masked_lm_weights"], tf.float32)
    mlm_loss, mlm_example_loss, log_probs = modeling.masked_lm_loss(
        y_pred["masked_lm_logits"], ids, weights)
    flat_weights = tf.reshape(weights, [-1])
    predicted = tf.argmax(log_probs, axis=-1, output_type=tf.int32)
    correct = tf.cast(tf.equal(predicted, tf.reshape(tf.cast(ids, tf.int32),
                                                     [-1])), tf.float32)
    parts = {
        "masked_lm_loss": (tf.reshape(mlm_example_loss, [-1]), flat_weights),
        "masked_lm_accuracy": (correct, flat_weights)}
    batch = {"masked_lm_loss": mlm_loss,
             "masked_lm_accuracy": tf.math.divide_no_nan(
                 tf.reduce_sum(correct * flat_weights),
                 tf.reduce_sum(flat_weights))}
    loss = mlm_loss
    if self.next_sentence is not None:
      labels = tf.reshape(features["next_sentence_labels"], [-1])
      nsp_loss, nsp_example_loss, nsp_log_probs = modeling.next_sentence_loss(
          y_pred["next_sentence_logits"], labels)
      nsp_predicted = tf.argmax(nsp_log_probs, axis=-1, output_type=tf.int32)
      nsp_correct = tf.cast(tf.equal(nsp_predicted, tf.cast(labels, tf.int32)),
                            tf.float32)
      parts["next_sentence_loss"] = (nsp_example_loss, None)
      parts["next_sentence_accuracy"] = (nsp_correct, None)
      batch.update(next_sentence_loss=nsp_loss,
                   next_sentence_accuracy=tf.reduce_mean(nsp_correct))
      loss = mlm_loss + nsp_loss
    return loss, batch, parts

  def loss_and_outputs(self, features, training=False):
    """(`task_loss`, outputs): "parts", {metric: (values, weights)}, and each
    metric's value on the batch under its name."""
    loss, batch, parts = self._loss_parts(features,
                                          self(features, training=training))
    return loss, dict(batch, parts=parts)

  def training_scalars(self):
    """The metrics, logged per batch beside the loss in training."""
    return self.metric_names

  def eval_metrics(self):
    """masked_lm_accuracy, masked_lm_loss (weighted by masked_lm_weights)
    and with NSP next_sentence_accuracy, next_sentence_loss."""
    return {name: keras.metrics.Mean(name=name) for name in self.metric_names}

  def update_eval_metrics(self, metrics, features, outputs):
    del features  # In the parts.
    for name, (values, weights) in outputs["parts"].items():
      metrics[name].update_state(values, sample_weight=weights)

  def predict_outputs(self, features):
    """"masked_lm_predictions" int32 [batch_size, max_predictions_per_seq]
    and with NSP "next_sentence_probabilities" float32 [batch_size, 2]."""
    logits = self(features, training=False)
    out = {"masked_lm_predictions": tf.argmax(
        logits["masked_lm_logits"], axis=-1, output_type=tf.int32)}
    if self.use_nsp:
      out["next_sentence_probabilities"] = tf.nn.softmax(
          logits["next_sentence_logits"], axis=-1)
    return out

  def get_config(self):
    config = self.base_config()
    config.update(config=self.config.to_dict(), use_nsp=self.use_nsp,
                  use_one_hot_embeddings=self.use_one_hot_embeddings)
    return config
