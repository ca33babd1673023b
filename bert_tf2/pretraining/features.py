"""The TFRecord feature spec written by `create_pretraining_data.py`.

Seven fixed-length features; the int64 ones are cast to int32 after
parsing, as the original does for TPUs.

Example:
  >>> spec = name_to_features(128, 20)
  >>> spec["masked_lm_weights"].shape, spec["masked_lm_weights"].dtype.name
  ([20], 'float32')
"""

import tensorflow as tf

SEQ_FEATURES = ("input_ids", "input_mask", "segment_ids")
PRED_FEATURES = ("masked_lm_positions", "masked_lm_ids", "masked_lm_weights")
FLOAT_FEATURES = ("masked_lm_weights",)


def expected_lengths(max_seq_length, max_predictions_per_seq):
  """Returns {feature_name: expected number of values} for one record."""
  lengths = {name: max_seq_length for name in SEQ_FEATURES}
  lengths.update({name: max_predictions_per_seq for name in PRED_FEATURES})
  lengths["next_sentence_labels"] = 1
  return lengths


def name_to_features(max_seq_length, max_predictions_per_seq):
  """Returns the `tf.io.FixedLenFeature` spec of a pretraining record."""
  spec = {}
  for name, length in expected_lengths(max_seq_length,
                                       max_predictions_per_seq).items():
    dtype = tf.float32 if name in FLOAT_FEATURES else tf.int64
    spec[name] = tf.io.FixedLenFeature([length], dtype)
  return spec

