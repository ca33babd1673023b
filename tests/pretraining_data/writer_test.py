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


def _tf_written(path, records):
  with tf.io.TFRecordWriter(str(path)) as w:
    for r in records:
      w.write(r)
  return open(path, "rb").read()


def test_framed_files_equal_tensorflows(tmp_path, monkeypatch):
  # Local outputs are framed by the compiled extension (no TensorFlow):
  # byte for byte what tf.io.TFRecordWriter writes, over the chunk size.
  monkeypatch.setenv("BERT_TF2_PURE_PYTHON", "0")
  rng = random.Random(5)
  recs = [bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 7, 300])))
          for _ in range(writer._FramedFile._CHUNK + 123)]  # pylint: disable=protected-access
  paths = [str(tmp_path / "a.tfrecord"), str(tmp_path / "b.tfrecord")]
  with writer.RoundRobinWriter(paths) as w:
    assert all(isinstance(x, writer._FramedFile) for x in w._writers)  # pylint: disable=protected-access
    for r in recs:
      w.write(r)
  for i, path in enumerate(paths):
    expected = _tf_written(tmp_path / ("tf%d" % i), recs[i::2])
    assert open(path, "rb").read() == expected


def test_without_the_extension_tensorflow_writes(tmp_path, monkeypatch):
  monkeypatch.setenv("BERT_TF2_PURE_PYTHON", "1")
  path = str(tmp_path / "a.tfrecord")
  with writer.RoundRobinWriter([path]) as w:
    assert not isinstance(w._writers[0], writer._FramedFile)  # pylint: disable=protected-access
    w.write(b"xyz")
  assert open(path, "rb").read() == _tf_written(tmp_path / "tf", [b"xyz"])


def test_parse_record_equals_protobuf():
  rng = random.Random(9)
  enc = writer.ExampleEncoder(32, 5, max_id=70000)
  for _ in range(50):
    n = rng.randint(3, 32)
    k = rng.randint(0, 5)
    record = enc.encode([rng.randint(0, 70000) for _ in range(n)],
                        rng.randint(0, n - 3), sorted(rng.sample(range(n), k)),
                        [rng.randint(0, 70000) for _ in range(k)],
                        rng.random() < 0.5)
    parsed = writer.parse_record(record)
    feature = tf.train.Example.FromString(record).features.feature
    assert set(parsed) == set(feature) == set(writer.FEATURE_NAMES)
    for name in writer.FEATURE_NAMES:
      assert parsed[name] == list(feature[name].int64_list.value or
                                  feature[name].float_list.value), name
  # Any Example of int64/float lists: negative ints, fractions, empty lists.
  example = tf.train.Example(features=tf.train.Features(feature={
      "a": tf.train.Feature(int64_list=tf.train.Int64List(
          value=[-1, 0, 2**40, -2**63])),
      "b": tf.train.Feature(float_list=tf.train.FloatList(value=[0.1, -3.5])),
      "c": tf.train.Feature(int64_list=tf.train.Int64List(value=[]))}))
  parsed = writer.parse_record(example.SerializeToString())
  assert parsed["a"] == [-1, 0, 2**40, -2**63]
  assert parsed["b"] == list(example.features.feature["b"].float_list.value)
  assert parsed["c"] == []


def test_a_local_run_never_imports_tensorflow(tmp_path):
  # TensorFlow's import is most of a small run's time: reading, making,
  # logging (20 examples) and writing local files must not need it.
  import subprocess  # pylint: disable=g-import-not-at-top
  import sys  # pylint: disable=g-import-not-at-top
  (tmp_path / "vocab.txt").write_text("\n".join(
      ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat",
       "dog", "ran", "."]))
  (tmp_path / "in.txt").write_text(
      "the cat sat.\nthe dog ran.\n\nthe dog sat.\nthe cat ran.\n")
  code = (
      "import sys, tokenization\n"
      "from bert_tf2.pretraining_data import options, pipeline\n"
      "stats = pipeline.run([sys.argv[1]], [sys.argv[2]],\n"
      "    tokenization.FullTokenizer(sys.argv[3]),\n"
      "    options.DataOptions(max_seq_length=16, dupe_factor=3))\n"
      "assert stats.instances > 0\n"
      "print('tensorflow' in sys.modules)\n")
  env = dict(os.environ, BERT_TF2_PURE_PYTHON="0")
  out = subprocess.run(
      [sys.executable, "-c", code, str(tmp_path / "in.txt"),
       str(tmp_path / "out.tfrecord"), str(tmp_path / "vocab.txt")],
      capture_output=True, text=True, env=env, check=True,
      cwd=os.path.dirname(os.path.dirname(os.path.dirname(
          os.path.abspath(__file__)))))
  assert out.stdout.strip() == "False", out.stderr[-2000:]
  assert len(records.read_examples(str(tmp_path / "out.tfrecord"))) > 0


def test_parse_record_rejects_what_is_not_such_an_example():
  with pytest.raises(ValueError, match="wire type"):
    writer.parse_record(b"\x08\x01")  # A varint field: not an Example.
