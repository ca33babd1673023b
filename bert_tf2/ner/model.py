"""The NER model: BERT's sequence output -> per-token tag logits.

As the BERT paper's token tagging: dropout 0.1 on the final hidden states
(`classifier_dropout_prob`; 0 turns it off), then one linear layer;
variables bert/... and top-level `output_weights` [num_labels, hidden],
`output_bias` [num_labels] (the classifier's names).

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


class BertTokenClassifier(keras.Model):
  """BertModel + a linear tag layer; call(features) -> float32 logits."""

  def __init__(self, bert_config, num_labels, use_one_hot_embeddings=False,
               classifier_dropout_prob=0.1, **kwargs):
    kwargs.setdefault("name", "bert_token_classifier")
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    self.bert_config = bert_config
    self.num_labels = int(num_labels)
    self.use_one_hot_embeddings = use_one_hot_embeddings
    self.classifier_dropout_prob = float(classifier_dropout_prob)
    self.bert = modeling.BertModel(
        bert_config, use_one_hot_embeddings=use_one_hot_embeddings)
    self.classifier = modeling.ClassificationHead(
        self.num_labels, hidden_size=bert_config.hidden_size,
        initializer_range=bert_config.initializer_range,
        dropout_prob=self.classifier_dropout_prob)

  def call(self, features, training=False):
    """Returns logits, float32 [batch_size, seq_length, num_labels].

    Args:
      features: dict with int [batch_size, seq_length] "input_ids",
        "input_mask" and "segment_ids".
      training: apply dropout.
    """
    outputs = self.bert({"input_ids": features["input_ids"],
                         "input_mask": features["input_mask"],
                         "token_type_ids": features["segment_ids"]},
                        training=training)
    sequence = outputs["sequence_output"]
    shape = tf.shape(sequence)
    logits = self.classifier(sequence, training=training)
    return tf.reshape(logits, [shape[0], shape[1], self.num_labels])

  def get_config(self):
    return {"bert_config": self.bert_config.to_dict(),
            "num_labels": self.num_labels,
            "use_one_hot_embeddings": self.use_one_hot_embeddings,
            "classifier_dropout_prob": self.classifier_dropout_prob,
            "name": self.name}

  @classmethod
  def from_config(cls, config):
    return cls(**config)
