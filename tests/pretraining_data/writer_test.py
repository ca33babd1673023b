"""The hand-serialized Examples parse to exactly the original's Examples."""

import collections
import os
import random

import pytest
import tensorflow as tf

from bert_tf2.pretraining_data import writer
from tests.pretraining_data import records


def _original_example(input_ids, len_a, positions, labels, is_random_next,
                      max_seq_length, max_predictions_per_seq):
  """Built with protobuf objects the way the original script builds it."""
  n = len(input_ids)
  pad = max_seq_length - n
  k = len(positions)
  segment_ids = [0] * (len_a + 2) + [1] * (n - len_a - 2)

  def ints(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))

  features = collections.OrderedDict()
  features["input_ids"] = ints(list(input_ids) + [0] * pad)
  features["input_mask"] = ints([1] * n + [0] * pad)
  features["segment_ids"] = ints(segment_ids + [0] * pad)
  features["masked_lm_positions"] = ints(
      list(positions) + [0] * (max_predictions_per_seq - k))
  features["masked_lm_ids"] = ints(
      list(labels) + [0] * (max_predictions_per_seq - k))
  features["masked_lm_weights"] = tf.train.Feature(
      float_list=tf.train.FloatList(
          value=[1.0] * k + [0.0] * (max_predictions_per_seq - k)))
  features["next_sentence_labels"] = ints([1 if is_random_next else 0])
  return tf.train.Example(
      features=tf.train.Features(feature=features)).SerializeToString()


@pytest.mark.parametrize("max_seq_length,max_predictions,max_id", [
    (5, 1, 30521), (128, 20, 30521), (512, 80, 250000), (200, 200, 127)])
def test_encoding_matches_protobuf(max_seq_length, max_predictions, max_id):
  rng = random.Random(max_seq_length)
  encoder = writer.ExampleEncoder(max_seq_length, max_predictions, max_id)
  for _ in range(200):
    n = rng.randint(5, max_seq_length)
    len_a = rng.randint(1, n - 4)
    ids = [rng.randint(0, max_id) for _ in range(n)]
    k = rng.randint(1, min(max_predictions, n - 3))
    positions = sorted(rng.sample(range(1, n - 1), k))
    labels = [rng.randint(0, max_id) for _ in range(k)]
    is_random_next = rng.random() < 0.5
    ours = encoder.encode(ids, len_a, positions, labels, is_random_next)
    theirs = _original_example(ids, len_a, positions, labels, is_random_next,
                               max_seq_length, max_predictions)
    assert records.parse_example(ours) == records.parse_example(theirs)


def test_encoder_rejects_oversized_instance():
  encoder = writer.ExampleEncoder(8, 2, 100)
  with pytest.raises(ValueError):
    encoder.encode(list(range(9)), 1, [1], [1], False)
  with pytest.raises(ValueError):
    encoder.encode(list(range(6)), 1, [1, 2, 3], [1, 2, 3], False)


def test_round_robin_and_atomic(tmp_path):
  paths = [str(tmp_path / ("out%d.tfrecord" % i)) for i in range(3)]
  with writer.RoundRobinWriter(paths) as w:
    for i in range(7):
      w.write(b"record%d" % i)
  got = [[r for r in tf.compat.v1.io.tf_record_iterator(p)] for p in paths]
  assert got == [[b"record0", b"record3", b"record6"],
                 [b"record1", b"record4"], [b"record2", b"record5"]]


def test_failure_leaves_previous_outputs_untouched(tmp_path):
  path = str(tmp_path / "out.tfrecord")
  with open(path, "wb") as f:
    f.write(b"previous")
  with pytest.raises(RuntimeError):
    with writer.RoundRobinWriter([path, str(tmp_path / "new.tfrecord")]) as w:
      w.write(b"x")
      raise RuntimeError("killed mid-write")
  assert sorted(os.listdir(tmp_path)) == ["out.tfrecord"]
  with open(path, "rb") as f:
    assert f.read() == b"previous"
