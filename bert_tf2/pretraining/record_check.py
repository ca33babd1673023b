"""Checks pretraining TFRecords and explains bad ones with file and record.

A record of the wrong lengths, or a truncated or corrupt file, makes
`tf.data` fail with an opaque message; this module raises a
`common.InputError` naming the file, record index and feature instead.

Example:
  >>> import tempfile, os
  >>> path = os.path.join(tempfile.mkdtemp(), "empty.tfrecord")
  >>> with tf.io.TFRecordWriter(path) as w:
  ...   pass
  >>> check_first_records([path], 128, 20)  # doctest: +ELLIPSIS
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: --input_file: no records in any of the 1 input files (e.g. ...empty.tfrecord)
"""

import contextlib

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import record_files
from bert_tf2.pretraining import features as features_lib


def value_limits(max_seq_length, vocab_size=None, type_vocab_size=None):
  """Returns {feature: exclusive upper bound of its values} to check."""
  limits = {"masked_lm_positions": max_seq_length, "input_mask": 2,
            "next_sentence_labels": 2}
  if vocab_size:
    limits["input_ids"] = vocab_size
    limits["masked_lm_ids"] = vocab_size
  if type_vocab_size:
    limits["segment_ids"] = type_vocab_size
  return limits


def _example_problem(serialized, expected, limits=None):
  """Returns a description of what is wrong with one record, or None."""
  try:
    example = tf.train.Example.FromString(serialized)
  except Exception:  # pylint: disable=broad-except
    return "is not a tf.train.Example"
  feature_map = example.features.feature
  for name, length in expected.items():
    if name not in feature_map:
      return "has no feature %r" % name
    feature = feature_map[name]
    kind = feature.WhichOneof("kind")
    want_kind = ("float_list" if name in features_lib.FLOAT_FEATURES
                 else "int64_list")
    if kind != want_kind:
      return "feature %r is %s, expected %s" % (name, kind, want_kind)
    actual = len(getattr(feature, kind).value)
    if actual != length:
      flag = ("--max_seq_length" if name in features_lib.SEQ_FEATURES else
              "--max_predictions_per_seq"
              if name in features_lib.PRED_FEATURES else "fixed length")
      return ("feature %r has %d values, expected %d (%s=%d); the records "
              "were written with different settings" % (
                  name, actual, length, flag, length))
    bound = (limits or {}).get(name)
    if bound is not None:
      values = feature.int64_list.value
      bad = [v for v in values if v < 0 or v >= bound]
      if bad:
        return ("feature %r has value %d, outside [0, %d)" % (
            name, bad[0], bound))
  return None


def check_record_file(path, max_seq_length, max_predictions_per_seq,
                      limit=None, limits=None):
  """Checks up to `limit` records (all if None) of one TFRecord file.

  Args:
    limits: optional {feature: exclusive upper bound}, see value_limits().

  Returns:
    The number of records checked.
  """
  expected = features_lib.expected_lengths(max_seq_length,
                                           max_predictions_per_seq)
  count = 0
  for index, serialized in record_files.read_records(path, limit,
                                                      "--input_file"):
    problem = _example_problem(serialized, expected, limits)
    if problem:
      raise InputError("--input_file: %s: record %d: %s" % (
          path, index, problem))
    count += 1
  return count


def check_first_records(files, max_seq_length, max_predictions_per_seq,
                        limits=None):
  """Checks the first record of every file; at least one must exist
  (training would wait forever)."""
  total = 0
  for path in files:
    try:
      total += check_record_file(path, max_seq_length,
                                 max_predictions_per_seq, limit=1,
                                 limits=limits)
    except tf.errors.OpError as e:
      raise InputError("--input_file: %s: cannot read (%s)" % (
          path, e.message)) from None
  if not total:
    raise InputError("--input_file: no records in any of the %d input files "
                     "(e.g. %s)" % (len(files), files[0]))


def find_bad_record(files, max_seq_length, max_predictions_per_seq,
                    limits=None):
  """Scans every record; raises InputError at the first bad one."""
  for path in files:
    check_record_file(path, max_seq_length, max_predictions_per_seq,
                      limits=limits)


@contextlib.contextmanager
def explain_input_errors(files, max_seq_length, max_predictions_per_seq,
                         limits=None):
  """Turns a tf.data read/parse failure into an InputError naming the record
  (the original error when the scan finds nothing wrong)."""
  try:
    yield
  except (tf.errors.InvalidArgumentError, tf.errors.DataLossError) as e:
    logging.error("Input pipeline failed (%s); scanning the %d input files "
                  "for the bad record", type(e).__name__, len(files))
    find_bad_record(files, max_seq_length, max_predictions_per_seq, limits)
    raise
