"""The one writer and the one input_fn for fixed-length TFRecords.

Every fine-tuning task stores its examples as tf.train.Examples of
fixed-length int64/float features (`write_records`) and reads them back
with `input_fn` (record spec, training shuffle with the data-order seed,
batch padding trim, length grouping, TPU drop_remainder).

Example:
  >>> import os, tempfile
  >>> import tensorflow as tf
  >>> path = os.path.join(tempfile.mkdtemp(), "train.tf_record")
  >>> write_records(path, [{"input_ids": [5, 6, 0], "input_mask": [1, 1, 0],
  ...                       "label_ids": [1]}])
  1
  >>> spec = sequence_spec(3, ("input_ids", "input_mask"),
  ...                      {"label_ids": tf.int64})
  >>> batch = next(iter(input_fn(path, spec, 3, training=False)(
  ...     {"batch_size": 1})))
  >>> batch["input_ids"].numpy().tolist(), batch["label_ids"].dtype.name
  ([[5, 6, 0]], 'int32')
"""

import contextlib

from bert_tf2.common import atomic_path
from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.common import record_files


@contextlib.contextmanager
def explain_read_errors(paths):
  """Turns a tf.data failure reading the run's record files into one line.

  A DataLossError or NotFoundError becomes an InputError naming the file
  in `paths` and, for a damaged file, its first bad record
  (`common.record_files`); anything else propagates unchanged.
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  try:
    yield
  except (tf.errors.DataLossError, tf.errors.NotFoundError) as e:
    for path in paths:
      if not tf.io.gfile.exists(path):
        raise InputError(
            "%s: removed while the run was reading it (%s); the run writes "
            "it at its start: rerun" % (path, type(e).__name__)) from None
      record_files.count_readable_records(path)
    raise


def to_example(features):
  """tf.train.Example of {name: int, float or list of them}, in dict order
  (floats as float_list, everything else as int64_list)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  out = {}
  for name, values in features.items():
    values = list(values) if isinstance(values, (list, tuple)) or hasattr(
        values, "tolist") else [values]
    if values and isinstance(values[0], float):
      out[name] = tf.train.Feature(float_list=tf.train.FloatList(
          value=values))
    else:
      out[name] = tf.train.Feature(int64_list=tf.train.Int64List(
          value=[int(v) for v in values]))
  return tf.train.Example(features=tf.train.Features(feature=out))


def write_records(path, rows):
  """Writes an iterable of feature dicts (see `to_example`) or
  tf.train.Examples to the TFRecord `path`, atomically; returns the count."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  n = 0
  with atomic_path(path) as tmp, tf.io.TFRecordWriter(tmp) as writer:
    for row in rows:
      example = row if isinstance(row, tf.train.Example) else to_example(row)
      writer.write(example.SerializeToString())
      n += 1
  return n


def sequence_spec(seq_length, sequences, scalars=None):
  """Record spec: `sequences` are int64 [seq_length]; `scalars` maps names
  to the dtype of a one-value feature."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  spec = {name: tf.io.FixedLenFeature([seq_length], tf.int64)
          for name in sequences}
  for name, dtype in (scalars or {}).items():
    spec[name] = tf.io.FixedLenFeature([], dtype)
  return spec


def input_fn(path, spec, seq_length, training, drop_remainder=None,
             seed=None, shuffle_buffer=100, trim_padding=False, buckets=None,
             group_by_length=False):
  """Returns input_fn(params) -> tf.data.Dataset of feature dicts.

  Args:
    path: a TFRecord file (or a list of them).
    spec: {name: tf.io.FixedLenFeature}; int64 features become int32.
    seq_length: the records' sequence length.
    training: repeat and shuffle (buffer `shuffle_buffer`, `seed`).
    drop_remainder: drop a final partial batch (default: `training`).
    seed: the shuffle seed (runner.data_seed: fixed in a multi-worker job,
      so that every worker reads one order).
    trim_padding: cut each batch's sequence features to its longest real
      sequence rounded up to one of `buckets` (same results, less work).
    buckets: lengths (default `common.padding.bucket_lengths(seq_length)`).
    group_by_length: training batches of similar lengths.
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  if drop_remainder is None:
    drop_remainder = training

  def decode(record):
    example = tf.io.parse_single_example(record, spec)
    return {k: tf.cast(v, tf.int32) if v.dtype == tf.int64 else v
            for k, v in example.items()}

  def make(params):
    d = tf.data.TFRecordDataset(path)
    if training:
      d = d.repeat().shuffle(buffer_size=shuffle_buffer, seed=seed)
    d = d.map(tf.autograph.experimental.do_not_convert(decode),
              num_parallel_calls=tf.data.AUTOTUNE)
    if group_by_length and training:
      d = padding.group_by_length(
          d, params["batch_size"],
          buckets or padding.bucket_lengths(seq_length), drop_remainder)
    else:
      d = d.batch(params["batch_size"], drop_remainder=drop_remainder)
    if trim_padding:
      d = padding.trim_batch_padding(d, seq_length, buckets)
    return d
  return make
