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

import collections

import tensorflow as tf

from bert_tf2.common import atomic_path
from bert_tf2.finetune import records as finetune_records


def _int_feature(values):
  return tf.train.Feature(int64_list=tf.train.Int64List(value=list(values)))


def feature_to_example(feature, is_training):
  """InputFeatures -> tf.train.Example with the original's field names."""
  fields = collections.OrderedDict()
  fields["unique_ids"] = _int_feature([feature.unique_id])
  fields["input_ids"] = _int_feature(feature.input_ids)
  fields["input_mask"] = _int_feature(feature.input_mask)
  fields["segment_ids"] = _int_feature(feature.segment_ids)
  if is_training:
    fields["start_positions"] = _int_feature([feature.start_position])
    fields["end_positions"] = _int_feature([feature.end_position])
    fields["is_impossible"] = _int_feature([1 if feature.is_impossible else 0])
  return tf.train.Example(features=tf.train.Features(feature=fields))


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
    # deterministic=True: map fields in key order, so the same features give
    # the same bytes in every run (plain serialization orders them by a
    # per-process hash).
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
  spec = {
      "unique_ids": tf.io.FixedLenFeature([], tf.int64),
      "input_ids": tf.io.FixedLenFeature([seq_length], tf.int64),
      "input_mask": tf.io.FixedLenFeature([seq_length], tf.int64),
      "segment_ids": tf.io.FixedLenFeature([seq_length], tf.int64),
  }
  if is_training:
    spec["start_positions"] = tf.io.FixedLenFeature([], tf.int64)
    spec["end_positions"] = tf.io.FixedLenFeature([], tf.int64)
  return spec


def input_fn_builder(input_file, seq_length, is_training, drop_remainder,
                     trim_padding=False, buckets=None, seed=None):
  """Returns input_fn(params) -> batched tf.data.Dataset of int32 features
  (`finetune.records.input_fn` with the SQuAD spec).

  Training data repeats forever and is shuffled with a buffer of 100, as in
  the original (with `seed`, in a reproducible order). With trim_padding,
  each batch's sequence features are cut to its longest sequence rounded up
  to one of `buckets` (default: the coarse `common.padding.bucket_lengths`);
  only for prediction: the training loss softmaxes over every position up
  to seq_length, padding included (the original's), so trimming would
  change it.
  """
  if trim_padding and is_training:
    raise ValueError("SQuAD training records cannot be trimmed: the loss "
                     "counts padding positions")
  return finetune_records.input_fn(
      input_file, name_to_features(seq_length, is_training), seq_length,
      is_training, drop_remainder=drop_remainder, seed=seed,
      shuffle_buffer=100, trim_padding=trim_padding, buckets=buckets)
