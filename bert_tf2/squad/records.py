"""SQuAD features <-> TFRecord files (train.tf_record / eval.tf_record).

Records hold the original's tf.train.Example fields: int64 "unique_ids",
"input_ids", "input_mask", "segment_ids" and, for training, "start_positions",
"end_positions", "is_impossible". Files are written atomically and
deterministically (same features -> same bytes).

Example:
  >>> writer = FeatureWriter("/tmp/eval.tf_record", is_training=False)  # doctest: +SKIP
  >>> convert_examples_to_features(..., output_fn=writer.process_feature)  # doctest: +SKIP
  >>> writer.close()  # doctest: +SKIP
"""

import tensorflow as tf

from bert_tf2.common import atomic_path
from bert_tf2.finetune import records as finetune_records


def feature_to_example(feature, is_training):
  """InputFeatures -> tf.train.Example with the original's field names."""
  fields = {"unique_ids": feature.unique_id, "input_ids": feature.input_ids,
            "input_mask": feature.input_mask,
            "segment_ids": feature.segment_ids}
  if is_training:
    fields.update(start_positions=feature.start_position,
                  end_positions=feature.end_position,
                  is_impossible=1 if feature.is_impossible else 0)
  return finetune_records.to_example(fields)


class FeatureWriter(object):
  """Writes InputFeatures to a TFRecord file, atomically (on close()).

  Attributes:
    filename: the final path.
    num_features: int, records written so far.
  """

  def __init__(self, filename, is_training):
    self.filename = filename
    self.is_training = is_training
    self.num_features = 0
    self._path_ctx = atomic_path(filename)
    self._tmp = self._path_ctx.__enter__()
    self._writer = tf.io.TFRecordWriter(self._tmp)

  def process_feature(self, feature):
    """Appends one InputFeatures."""
    self.num_features += 1
    # deterministic=True: map fields in key order, the same bytes in every
    # run (plain serialization orders them by a per-process hash).
    self._writer.write(feature_to_example(
        feature, self.is_training).SerializeToString(deterministic=True))

  def close(self):
    """Finishes the file and moves it to `filename`."""
    self._writer.close()
    self._path_ctx.__exit__(None, None, None)

  def abort(self):
    """Drops the partial file; `filename` is left untouched."""
    self._writer.close()
    error = RuntimeError("aborted")
    self._path_ctx.__exit__(RuntimeError, error, None)


def name_to_features(seq_length, is_training):
  """The parsing spec of SQuAD records."""
  scalars = ("unique_ids",) + (("start_positions", "end_positions")
                               if is_training else ())
  return finetune_records.sequence_spec(
      seq_length, ("input_ids", "input_mask", "segment_ids"),
      dict.fromkeys(scalars, tf.int64))


def input_fn_builder(input_file, seq_length, is_training, drop_remainder,
                     trim_padding=False, buckets=None, seed=None):
  """Returns input_fn(params) -> batched tf.data.Dataset of int32 features
  (`finetune.records.input_fn` with the SQuAD spec; shuffle buffer 100 as
  the original). trim_padding only for prediction: the training loss
  softmaxes over every position, padding included (the original's).
  """
  if trim_padding and is_training:
    raise ValueError("SQuAD training records cannot be trimmed: the loss "
                     "counts padding positions")
  return finetune_records.input_fn(
      input_file, name_to_features(seq_length, is_training), seq_length,
      is_training, drop_remainder=drop_remainder, seed=seed,
      shuffle_buffer=100, trim_padding=trim_padding, buckets=buckets)
