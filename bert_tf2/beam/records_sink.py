"""TFRecord files written a shard at a time, atomically, by Beam's file sink.

Each element, (shard index, list of serialized Examples), is written as
consecutive records of one file PREFIX-SSSSS-of-NNNNN, so a shard keeps its
order (`WriteToTFRecord` takes one record per element, which a runner may
reorder). Beam's `FileBasedSink` renames the files into place only when the
whole pipeline has succeeded.

Example:
  >>> import tensorflow as tf
  >>> data = frame_records([b"ab", b"c"])
  >>> import os, tempfile
  >>> path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
  >>> _ = open(path, "wb").write(data)
  >>> [r.numpy() for r in tf.data.TFRecordDataset(path)]
  [b'ab', b'c']
"""

import io

from apache_beam.io import filebasedsink
from apache_beam.io import iobase
from apache_beam.io import tfrecordio
from apache_beam.io.filesystem import CompressionTypes

from bert_tf2.pretraining_data import fast

SHARD_NAME_TEMPLATE = "-SSSSS-of-NNNNN"


def frame_records(records):
  """list of bytes -> their TFRecord file bytes: the compiled framing of
  pretraining_data.fast when built, else Beam's own (private) one."""
  frame = fast.record_framing()
  if frame is not None:
    return frame(records)
  out = io.BytesIO()
  for record in records:
    tfrecordio._TFRecordUtil.write_record(out, record)  # pylint: disable=protected-access
  return out.getvalue()


class ShardRecordsSink(filebasedsink.FileBasedSink):
  """A FileBasedSink of (shard index, records) elements -> TFRecord files.

  Args:
    file_path_prefix: str, output path prefix (any Beam filesystem).
    num_shards: int, number of output files; 0 lets the runner choose (one
      per bundle, no extra shuffle).
  """

  def __init__(self, file_path_prefix, num_shards=0):
    super().__init__(file_path_prefix, coder=None, file_name_suffix="",
                     num_shards=num_shards,
                     shard_name_template=SHARD_NAME_TEMPLATE,
                     mime_type="application/octet-stream",
                     compression_type=CompressionTypes.UNCOMPRESSED)

  def write_record(self, file_handle, value):
    _, records = value
    file_handle.write(frame_records(records))


def write_shards(file_path_prefix, num_shards=0):
  """The PTransform writing (index, records) elements with the sink above."""
  return iobase.Write(ShardRecordsSink(file_path_prefix, num_shards))
