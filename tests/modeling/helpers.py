"""Shared helpers for the modeling tests: tiny configs, a model with heads."""

import keras
import numpy as np
import tensorflow as tf

import modeling


def tiny_config(**overrides):
  """An odd-sized config: catches transposes and head-splitting bugs."""
  values = dict(vocab_size=97, hidden_size=36, num_hidden_layers=3,
                num_attention_heads=3, intermediate_size=50, hidden_act="gelu",
                hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
                max_position_embeddings=24, type_vocab_size=3,
                initializer_range=0.02)
  values.update(overrides)
  return modeling.BertConfig(**values)


class FullModel(keras.Model):
  """BertModel plus every head, as a task model would hold them."""

  def __init__(self, config, num_labels=3, use_one_hot_embeddings=False,
               **kwargs):
    super().__init__(**kwargs)
    self.bert = modeling.BertModel(
        config, use_one_hot_embeddings=use_one_hot_embeddings)
    self.mlm = modeling.MaskedLMHead(config)
    self.nsp = modeling.NextSentenceHead(config)
    self.classifier = modeling.ClassificationHead(config, num_labels)
    self.squad = modeling.SquadHead(config)
    self.num_labels = num_labels

  def call(self, f, training=False):
    out = dict(self.bert(f, training=training))
    mlm_logits = self.mlm(out["sequence_output"], f["masked_lm_positions"],
                          self.bert.get_embedding_table())
    (out["mlm_loss"], out["mlm_per_example"],
     out["mlm_log_probs"]) = modeling.masked_lm_loss(
         mlm_logits, f["masked_lm_ids"], f["masked_lm_weights"])
    (out["nsp_loss"], out["nsp_per_example"],
     out["nsp_log_probs"]) = modeling.next_sentence_loss(
         self.nsp(out["pooled_output"]), f["next_sentence_labels"])
    cls_logits = self.classifier(out["pooled_output"], training=training)
    out["cls_logits"] = cls_logits
    out["cls_loss"], out["cls_per_example"], _ = modeling.classification_loss(
        cls_logits, f["labels"], self.num_labels)
    out["cls_probabilities"] = tf.nn.softmax(cls_logits)
    out["squad_start"], out["squad_end"] = self.squad(out["sequence_output"])
    return out


def random_features(config, batch_size=3, seq_length=13, num_predictions=4,
                    num_labels=3, seed=0):
  """Random inputs with padding (mask zeros at the end of some rows)."""
  rng = np.random.RandomState(seed)
  ids = rng.randint(1, config.vocab_size, size=(batch_size, seq_length))
  mask = np.ones_like(ids)
  for row in range(batch_size):
    length = seq_length - 3 * row
    mask[row, length:] = 0
    ids[row, length:] = 0
  types = rng.randint(0, config.type_vocab_size, size=ids.shape) * mask
  positions = np.stack([rng.choice(max(seq_length - 3 * r, num_predictions),
                                   num_predictions, replace=False)
                        for r in range(batch_size)])
  weights = np.ones((batch_size, num_predictions), np.float32)
  weights[-1, -1] = 0.0
  return {
      "input_ids": ids.astype(np.int32),
      "input_mask": mask.astype(np.int32),
      "token_type_ids": types.astype(np.int32),
      "masked_lm_positions": positions.astype(np.int32),
      "masked_lm_ids": rng.randint(0, config.vocab_size,
                                   size=positions.shape).astype(np.int32),
      "masked_lm_weights": weights,
      "next_sentence_labels": rng.randint(0, 2, size=(batch_size,)).astype(
          np.int32),
      "labels": rng.randint(0, num_labels, size=(batch_size,)).astype(
          np.int32),
      "num_labels": np.array(num_labels),
  }


def model_features(features):
  return {k: tf.constant(v) for k, v in features.items() if k != "num_labels"}


def outputs_to_numpy(out):
  """Flattens our output dict to the golden script's key names."""
  flat = {}
  for key, value in out.items():
    if key == "encoder_outputs":
      for i, layer in enumerate(value):
        flat["layer_%d" % i] = np.asarray(layer)
    elif key != "attention_probs":
      flat[key] = np.asarray(value)
  return flat
