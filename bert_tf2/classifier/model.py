"""The fine-tuning model: BERT's pooled output -> ClassificationHead.

Same computation and variable names as the original's `create_model`:
bert/... for the encoder, top-level `output_weights` [num_labels, hidden]
and `output_bias` [num_labels], dropout 0.1 on the pooled output in training
(`classifier_dropout_prob`: the original hard-codes 0.1; 0 turns it off).
For regression (STS-B) num_labels is 1 and the logit is the prediction.

An ordinary Keras model (`bert_tf2.common.task_model.TaskModel`): compiled
without a loss it trains on the original loss from "label_ids" in the
features, with "accuracy" (classification) as a metric; compiled with a
loss, on `fit(features, labels)` as any Keras model. See docs/keras.md.

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

import tensorflow as tf

import modeling
from bert_tf2.common import task_model
from modeling import inputs as model_inputs


@modeling.layers.serializable
class BertClassifier(task_model.TaskModel):
  """BertModel + ClassificationHead; call(features) -> float32 logits."""

  default_name = "bert_classifier"

  def __init__(self, bert_config, num_labels, use_one_hot_embeddings=False,
               classifier_dropout_prob=0.1, attention_layout="einsum",
               **kwargs):
    kwargs.setdefault("name", self.default_name)
    self.metric_names = self.metrics_for(int(num_labels))
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
    """The encoder's outputs (BertModel's dict) for `features`.

    Args:
      features: dict with int [batch_size, seq_length] "input_ids",
        "input_mask" and "segment_ids" (other keys are ignored).
      training: apply dropout.
    """
    return self.bert(model_inputs.encoder_inputs(features), training=training)

  def call(self, features, training=False):
    """Returns logits, float32 [batch_size, num_labels] (features: `encode`)."""
    outputs = self.encode(features, training=training)
    return self.classifier(outputs["pooled_output"], training=training)

  serving_output_names = ("logits",)

  @staticmethod
  def metrics_for(num_labels):
    """Names of the metrics the model reports when compiled without a loss."""
    return ("accuracy",) if num_labels > 1 else ()

  def task_loss(self, features, y, y_pred):
    """Softmax cross-entropy (MSE for num_labels=1) on "label_ids"."""
    labels = tf.reshape(task_model.labels(features, y, "label_ids"), [-1])
    if self.num_labels == 1:
      error = tf.square(y_pred[:, 0] - tf.cast(labels, tf.float32))
      return tf.reduce_mean(error), {}
    loss, _, _ = modeling.classification_loss(y_pred, labels, self.num_labels)
    predicted = tf.argmax(y_pred, axis=-1, output_type=tf.int32)
    correct = tf.cast(tf.equal(predicted, tf.cast(labels, tf.int32)),
                      tf.float32)
    return loss, {"accuracy": (correct, None)}

  def get_config(self):
    config = self.base_config()
    config.update(bert_config=self.bert_config.to_dict(),
                  num_labels=self.num_labels,
                  use_one_hot_embeddings=self.use_one_hot_embeddings,
                  classifier_dropout_prob=self.classifier_dropout_prob,
                  attention_layout=self.attention_layout)
    return config
