"""The pretraining model: BERT encoder + masked-LM head + next-sentence head.

Same variables, names and maths as the original `run_pretraining.py`:
  bert/...                       the encoder (`modeling.BertModel`)
  cls/predictions/...            MLM transform + output_bias; the output
                                 weights are bert/embeddings/word_embeddings
  cls/seq_relationship/...       NSP output_weights [2, hidden], output_bias
With `use_nsp=False` (`--no_nsp`, MLM-only pretraining) the NSP head is not
built and the checkpoint has no cls/seq_relationship variables.

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

import modeling
from modeling import inputs as model_inputs


class PretrainingModel(keras.Model):
  """Keras model computing the MLM and NSP logits of a features batch."""

  def __init__(self, config, use_nsp=True, use_one_hot_embeddings=False,
               **kwargs):
    kwargs.setdefault("name", "bert_pretraining")
    super().__init__(**kwargs)
    self.config = config
    self.use_nsp = bool(use_nsp)
    self.use_one_hot_embeddings = bool(use_one_hot_embeddings)
    self.bert = modeling.BertModel(
        config, use_one_hot_embeddings=use_one_hot_embeddings)
    self.masked_lm = modeling.MaskedLMHead(config)
    self.next_sentence = (modeling.NextSentenceHead.from_bert_config(config)
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

  def get_config(self):
    return {"config": self.config.to_dict(), "use_nsp": self.use_nsp,
            "use_one_hot_embeddings": self.use_one_hot_embeddings,
            "name": self.name}

  @classmethod
  def from_config(cls, config):
    config = dict(config)
    config["config"] = modeling.BertConfig.from_dict(config["config"])
    return cls(**config)
