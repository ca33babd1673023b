"""TFRecord framing: the compiled framing and Beam's give the same bytes,
which TensorFlow reads back."""

import tensorflow as tf

from bert_tf2.beam import records_sink
from bert_tf2.pretraining_data import fast


def test_both_framings_write_the_same_tfrecord_bytes(tmp_path, monkeypatch):
  records = [b"", b"a", b"\x00" * 300, bytes(range(256))]
  assert fast.record_framing() is not None  # The compiled one is built.
  compiled = records_sink.frame_records(records)
  monkeypatch.setattr(fast, "record_framing", lambda: None)
  assert records_sink.frame_records(records) == compiled
  path = tmp_path / "r.tfrecord"
  path.write_bytes(compiled)
  assert [r.numpy() for r in tf.data.TFRecordDataset(str(path))] == records


def test_file_names_are_the_sharded_modes():
  sink = records_sink.ShardRecordsSink("/out/records", num_shards=2)
  assert sink.shard_name_format % dict(shard_num=1, num_shards=2) == (
      "-00001-of-00002")
