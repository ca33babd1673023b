"""Reads a TFRecord file record by record, naming the first damaged one.

tf.data reports a truncated or corrupt TFRecord file as an opaque
DataLossError, or not at all when the file ends inside a record's header;
`read_records` raises an `InputError` naming the file and the record.

Example:
  >>> import os, tempfile
  >>> path = os.path.join(tempfile.mkdtemp(), "x.tf_record")
  >>> with tf.io.TFRecordWriter(path) as w:
  ...   w.write(b"a"); w.write(b"bc")
  >>> count_readable_records(path)
  2
  >>> with open(path, "r+b") as f:
  ...   _ = f.truncate(os.path.getsize(path) - 1)
  >>> count_readable_records(path, what="--input_file")  # doctest: +ELLIPSIS
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: --input_file: .../x.tf_record: record 1 is truncated or corrupt (...); the file is damaged or was not completely written
"""

import tensorflow as tf

from bert_tf2.common import InputError


def _truncated(path, index, detail, what):
  return InputError(
      "%s%s: record %d is truncated or corrupt (%s); the file "
      "is damaged or was not completely written" % (
          what + ": " if what else "", path, index, detail))


def read_records(path, limit=None, what=""):
  """Yields (index, serialized bytes) of a TFRecord file's records (the
  first `limit` if given); `what` names the file's flag in the message.

  Raises:
    InputError: naming `path` and the first truncated or corrupt record.
  """
  dataset = tf.data.TFRecordDataset(path)
  if limit is not None:
    dataset = dataset.take(limit)
  index = 0
  consumed = 0  # Bytes of the complete records read so far.
  iterator = iter(dataset)
  while True:
    try:
      record = next(iterator)
    except StopIteration:
      break
    except (tf.errors.DataLossError, tf.errors.OutOfRangeError) as e:
      detail = str(e.message if hasattr(e, "message") else e)
      detail = detail.split("}}")[-1].split("[Op:")[0].strip()
      # Keep "truncated record at N", drop TF's "' failed with ..." tail.
      detail = detail.split("' failed with")[0].strip()
      raise _truncated(path, index, detail, what) from None
    data = record.numpy()
    consumed += 8 + 4 + len(data) + 4  # length, its crc, data, data crc
    yield index, data
    index += 1
  if limit is None or index < limit:
    # tf.data ends a file quietly when it stops inside a record's 12-byte
    # header (e.g. a writer killed mid-record): compare with the file size.
    size = tf.io.gfile.stat(path).length
    if size != consumed:
      raise _truncated(path, index, "the file ends %d bytes into it"
                       % (size - consumed), what)


def count_readable_records(path, what=""):
  """Reads every record of a TFRecord file; returns how many there are.

  Raises:
    InputError: as `read_records`.
  """
  return sum(1 for _ in read_records(path, what=what))
