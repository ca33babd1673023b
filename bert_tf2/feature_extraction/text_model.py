"""extract_features' model on raw strings: `FeatureTextModel`.

`EncoderLayers` is the task: `modeling.BertModel`'s encoder layers chosen
by `layers` (-1 = the last), as float32 token_vectors [batch, seq,
len(layers), hidden], and their pools (`serving.pool`, [batch,
len(layers), hidden]). The text model pads the per-token outputs back to
max_seq_length, so batches of any lengths concatenate.

Example:
  >>> import modeling
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=2, num_attention_heads=2, intermediate_size=8)
  >>> task = EncoderLayers(cfg, layers=(-1, 0))
  >>> ids = tf.ones([2, 5], tf.int32)
  >>> out = task({"input_ids": ids, "input_mask": ids,
  ...             "segment_ids": 0 * ids})
  >>> out["token_vectors"].shape, out["mean_vectors"].shape
  (TensorShape([2, 5, 2, 8]), TensorShape([2, 2, 8]))
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.common.text_model import TextModel
from bert_tf2.feature_extraction.serving import pool
from modeling import layers as layers_lib

# The outputs with a sequence axis (padded back to max_seq_length).
SEQUENCE_OUTPUTS = ("token_vectors", "input_mask")


@layers_lib.serializable
class EncoderLayers(keras.layers.Layer):
  """A `BertModel`'s chosen encoder layers and their pools (see module).

  Args:
    bert_config: `modeling.BertConfig` (or its dict).
    layers: encoder layer indexes (-1 = last), already checked
      (`extractor.parse_layers`).
    attention_layout: see `modeling.BertModel`.
  """

  def __init__(self, bert_config, layers=(-1,),
               attention_layout=modeling.attention.DEFAULT_ATTENTION_LAYOUT,
               **kwargs):
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    self.bert_config = bert_config
    self.layers = [int(i) for i in layers]
    self.attention_layout = attention_layout
    self.bert = modeling.BertModel(bert_config,
                                   attention_layout=attention_layout,
                                   dtype=self.dtype_policy)

  def call(self, features, training=False):
    out = self.bert({"input_ids": features["input_ids"],
                     "input_mask": features["input_mask"],
                     "token_type_ids": features["segment_ids"]},
                    training=training)
    # float32 vectors (and pools) whatever the model's precision.
    vectors = tf.stack([tf.cast(out["encoder_outputs"][i], tf.float32)
                        for i in self.layers], axis=2)
    return pool({"token_vectors": vectors,
                 "input_mask": tf.cast(features["input_mask"], tf.int32)})

  def get_config(self):
    config = super().get_config()
    config.update(bert_config=self.bert_config.to_dict(),
                  layers=list(self.layers),
                  attention_layout=self.attention_layout)
    return config


@layers_lib.serializable
class FeatureTextModel(TextModel):
  """`EncoderLayers` on raw texts or (text_a, text_b) pairs (see module)."""

  def call(self, inputs, training=False):
    out = dict(super().call(inputs, training=training))
    width = int(self.preprocessor.max_seq_length)
    for name in SEQUENCE_OUTPUTS:
      value = out[name]
      pad = [[0, 0]] * len(value.shape)
      pad[1] = [0, width - tf.shape(value)[1]]
      out[name] = tf.pad(value, pad)
    return out
