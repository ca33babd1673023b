"""TFRecord files written a shard at a time, atomically, by Beam's file sink.

Each element is one shard, (shard index, list of serialized Examples), and
is written as consecutive records of one file, so a shard's instances keep
their order in the output on every runner (Beam's `WriteToTFRecord` takes
one record per element, and a runner may reorder elements). Files are named
`PREFIX-SSSSS-of-NNNNN` (the sharded mode's names with `--num_output_files`).

Writing is Beam's `FileBasedSink`: each bundle writes a temporary file under
a `.temp-beam-*` directory beside the outputs, and only when the whole
pipeline has succeeded are the files of the bundles that succeeded renamed
into place (a retried bundle's file is dropped, not renamed). A failed
pipeline leaves no output file, never half of one.

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
  """list of bytes -> their TFRecord file bytes (length, CRCs, data each).

  The compiled framing of pretraining_data.fast when built; else Beam's
  TFRecord framing (tfrecordio keeps it private, but it is the one Beam
  writes and reads its own TFRecord files with; it needs crcmod, which the
  `beam` extra installs with apache-beam[tfrecord]).
  """
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
