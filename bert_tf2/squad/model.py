"""The SQuAD model: BERT encoder + span head (start/end logits per token).

Variables carry the original names: bert/... and cls/squad/output_weights
[2, hidden_size], cls/squad/output_bias [2], so checkpoints of the original
run_squad.py load directly and ours load in the original.

Compiled without a loss it trains on run_squad.py's loss from
"start_positions" and "end_positions" in the features (docs/keras.md).

Example:
  >>> import modeling, tensorflow as tf
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> model = SquadModel(cfg)
  >>> start, end = model({"input_ids": tf.ones([2, 5], tf.int32)})
  >>> start.shape
  TensorShape([2, 5])
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.common import task_model
from modeling import inputs as model_inputs


def span_loss(start_logits, end_logits, start_positions, end_positions):
  """SQuAD's loss, of run_squad.py and of Keras `fit`.

  Args:
    start_logits: float Tensor of shape [batch_size, seq_length].
    end_logits: float Tensor of shape [batch_size, seq_length].
    start_positions: int Tensor of shape [batch_size] or [batch_size, 1],
      the answer's first token ([CLS] = 0 for none).
    end_positions: int Tensor of the same shape, its last token.

  Returns:
    float32 scalar: (mean start cross-entropy + mean end cross-entropy) / 2,
    the original's.
  """
  return modeling.squad_loss(start_logits, end_logits,
                             tf.reshape(start_positions, [-1]),
                             tf.reshape(end_positions, [-1]))


@modeling.layers.serializable
class SquadModel(task_model.TaskModel):
  """BertModel + modeling.SquadHead; use_one_hot_embeddings: TPU lookup."""

  def __init__(self, bert_config, use_one_hot_embeddings=False, **kwargs):
    kwargs.setdefault("name", "squad_model")
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    self.bert_config = bert_config
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.bert = modeling.BertModel(
        bert_config, use_one_hot_embeddings=use_one_hot_embeddings,
        dtype=self.dtype_policy)
    self.span_head = modeling.SquadHead(bert_config, dtype=self.dtype_policy)
    self.built = True  # All variables exist.

  def call(self, features, training=False):
    """int features [batch_size, seq_length] ("input_ids", "input_mask",
    "segment_ids") -> (start_logits, end_logits), float32 [batch_size,
    seq_length]."""
    outputs = self.bert(model_inputs.encoder_inputs(features),
                        training=training)
    return self.span_head(outputs["sequence_output"])

  serving_output_names = ("start_logits", "end_logits")

  def task_loss(self, features, y, y_pred):
    """(start loss + end loss) / 2 on "start_positions", "end_positions"."""
    if isinstance(y, (list, tuple)):
      starts, ends = y
    else:
      starts = task_model.labels(features, y, "start_positions")
      ends = task_model.labels(features, y, "end_positions")
    start_logits, end_logits = y_pred
    return span_loss(start_logits, end_logits, starts, ends), {}

  # --- run_squad.py's steps (`runner.ModelTask`) --------------------------

  def loss_and_outputs(self, features, training=False):
    """(`span_loss` on "start_positions"/"end_positions", the logits)."""
    start_logits, end_logits = self(features, training=training)
    loss = span_loss(start_logits, end_logits, features["start_positions"],
                     features["end_positions"])
    return loss, {"start_logits": start_logits, "end_logits": end_logits}

  def predict_outputs(self, features):
    """"start_logits" and "end_logits", float32 [batch_size, seq_length]
    (the runner adds the features' "unique_ids")."""
    start_logits, end_logits = self(features, training=False)
    return {"start_logits": start_logits, "end_logits": end_logits}

  def eval_metrics(self):
    """start_accuracy and end_accuracy (argmax = the position); run_squad.py
    scores answers from predictions (`squad.evaluate`)."""
    return {"start_accuracy": keras.metrics.Accuracy(name="start_accuracy"),
            "end_accuracy": keras.metrics.Accuracy(name="end_accuracy")}

  def update_eval_metrics(self, metrics, features, outputs):
    for name in ("start", "end"):
      predicted = tf.argmax(outputs[name + "_logits"], axis=-1,
                            output_type=tf.int32)
      metrics[name + "_accuracy"].update_state(
          tf.cast(tf.reshape(features[name + "_positions"], [-1]), tf.int32),
          predicted)

  def get_config(self):
    config = self.base_config()
    config.update(bert_config=self.bert_config.to_dict(),
                  use_one_hot_embeddings=self.use_one_hot_embeddings)
    return config
