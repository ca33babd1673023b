"""The fine-tuning model: BERT's pooled output -> ClassificationHead.

Same computation and variable names as the original's `create_model`:
bert/... for the encoder, top-level `output_weights` [num_labels, hidden]
and `output_bias` [num_labels], dropout 0.1 on the pooled output in training.
For regression (STS-B) num_labels is 1 and the logit is the prediction.

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

import keras

import modeling
from modeling import inputs as model_inputs


class BertClassifier(keras.Model):
  """BertModel + ClassificationHead; call(features) -> float32 logits."""

  def __init__(self, bert_config, num_labels, use_one_hot_embeddings=False,
               **kwargs):
    kwargs.setdefault("name", "bert_classifier")
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    self.bert_config = bert_config
    self.num_labels = int(num_labels)
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.bert = modeling.BertModel(
        bert_config, use_one_hot_embeddings=use_one_hot_embeddings)
    self.classifier = modeling.ClassificationHead(
        self.num_labels, hidden_size=bert_config.hidden_size,
        initializer_range=bert_config.initializer_range)

  def call(self, features, training=False):
    """Returns logits, float32 [batch_size, num_labels].

    Args:
      features: dict with int [batch_size, seq_length] "input_ids",
        "input_mask" and "segment_ids" (other keys are ignored).
      training: apply dropout.
    """
    outputs = self.bert(model_inputs.encoder_inputs(features),
                        training=training)
    return self.classifier(outputs["pooled_output"], training=training)

  def get_config(self):
    return {"bert_config": self.bert_config.to_dict(),
            "num_labels": self.num_labels,
            "use_one_hot_embeddings": self.use_one_hot_embeddings,
            "name": self.name}

  @classmethod
  def from_config(cls, config):
    return cls(**config)
