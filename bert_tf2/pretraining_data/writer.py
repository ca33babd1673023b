"""tf.train.Example records for instances, serialized without protobuf objects.

Building an Example per instance dominates the original's writing time, so
`ExampleEncoder` writes the wire format directly; the bytes parse to exactly
the Example the original builds (tests/pretraining_data/writer_test.py).

Example:
  >>> import tensorflow as tf
  >>> enc = ExampleEncoder(max_seq_length=8, max_predictions_per_seq=2,
  ...                      max_id=200)
  >>> record = enc.encode([101, 7, 102, 150, 102], 1, [3], [9], True)
  >>> ex = tf.train.Example.FromString(record)
  >>> list(ex.features.feature["input_ids"].int64_list.value)
  [101, 7, 102, 150, 102, 0, 0, 0]
  >>> list(ex.features.feature["masked_lm_weights"].float_list.value)
  [1.0, 0.0]
"""

import contextlib
import struct

from bert_tf2.common import atomic_path
from bert_tf2.pretraining_data import fast
from tokenization import atomic

FEATURE_NAMES = ("input_ids", "input_mask", "segment_ids",
                 "masked_lm_positions", "masked_lm_ids", "masked_lm_weights",
                 "next_sentence_labels")


def _varint(value):
  """Protobuf base-128 varint of a non-negative int."""
  out = bytearray()
  while True:
    byte = value & 0x7F
    value >>= 7
    if value:
      out.append(byte | 0x80)
    else:
      out.append(byte)
      return bytes(out)


def _length_delimited(field_tag, payload):
  return field_tag + _varint(len(payload)) + payload


def _map_entry(name, feature_bytes):
  """One `Features.feature` map entry (field 1 of Features)."""
  entry = (_length_delimited(b"\x0a", name.encode("ascii")) +
           _length_delimited(b"\x12", feature_bytes))
  return _length_delimited(b"\x0a", entry)


def _list_feature(field_tag, packed):
  # Feature.float_list (b"\x12") or int64_list (b"\x1a") -> value (packed).
  inner = _length_delimited(b"\x0a", packed) if packed else b""
  return _length_delimited(field_tag, inner)


class ExampleEncoder(object):
  """Serializes instances to `tf.train.Example` bytes (the original's layout).

  Args:
    max_seq_length: int, length of input_ids/input_mask/segment_ids.
    max_predictions_per_seq: int, length of the masked_lm_* features.
    max_id: int, the largest token id or position that will be encoded.
  """

  def __init__(self, max_seq_length, max_predictions_per_seq, max_id):
    self.max_seq_length = max_seq_length
    self.max_predictions_per_seq = max_predictions_per_seq
    top = max(max_id, max_seq_length, max_predictions_per_seq) + 1
    self._varints = [_varint(v) for v in range(top)]
    seq, preds = max_seq_length, max_predictions_per_seq
    # Entries whose bytes depend only on a count: cached per count.
    self._mask_entries = [
        _map_entry("input_mask", _list_feature(
            b"\x1a", b"\x01" * n + b"\x00" * (seq - n)))
        for n in range(seq + 1)]
    self._weight_entries = [
        _map_entry("masked_lm_weights", _list_feature(
            b"\x12",
            struct.pack("<f", 1.0) * k + struct.pack("<f", 0.0) * (preds - k)))
        for k in range(preds + 1)]
    self._next_entries = [
        _map_entry("next_sentence_labels", _list_feature(b"\x1a", label))
        for label in (b"\x00", b"\x01")]
    self._headers = {}

  def _int_entry(self, name, packed):
    """`_map_entry(name, _list_feature(b"\x1a", packed))`, header cached."""
    key = (name, len(packed))
    header = self._headers.get(key)
    if header is None:
      entry = _map_entry(name, _list_feature(b"\x1a", packed))
      header = entry[:len(entry) - len(packed)]
      self._headers[key] = header
    return header + packed

  def encode(self, input_ids, len_a, masked_lm_positions, masked_lm_ids,
             is_random_next):
    """Returns the serialized Example of one instance.

    Args:
      input_ids: list of int, unpadded `[CLS] A [SEP] B [SEP]` ids.
      len_a: int, length of segment A (segment ids are 0 up to and including
        the first [SEP]).
      masked_lm_positions: list of int, unpadded.
      masked_lm_ids: list of int, unpadded.
      is_random_next: bool.
    """
    seq = self.max_seq_length
    preds = self.max_predictions_per_seq
    n = len(input_ids)
    k = len(masked_lm_positions)
    if n > seq or k > preds or k != len(masked_lm_ids):
      raise ValueError("instance of %d tokens / %d predictions does not fit "
                       "max_seq_length %d / max_predictions_per_seq %d" %
                       (n, k, seq, preds))
    v = self._varints
    pad_seq = b"\x00" * (seq - n)
    pad_preds = b"\x00" * (preds - k)
    num_zero_segments = len_a + 2
    body = b"".join((
        self._int_entry("input_ids",
                        b"".join([v[i] for i in input_ids]) + pad_seq),
        self._mask_entries[n],
        self._int_entry("segment_ids",
                        b"\x00" * num_zero_segments +
                        b"\x01" * (n - num_zero_segments) + pad_seq),
        self._int_entry("masked_lm_positions",
                        b"".join([v[i] for i in masked_lm_positions]) +
                        pad_preds),
        self._int_entry("masked_lm_ids",
                        b"".join([v[i] for i in masked_lm_ids]) + pad_preds),
        self._weight_entries[k],
        self._next_entries[1 if is_random_next else 0],
    ))
    return b"\x0a" + _varint(len(body)) + body


class RoundRobinWriter(object):
  """Writes records round-robin over TFRecord files, each one atomically.

  On an exception inside the `with` block no output file is created or
  replaced.

  Example:
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> paths = [os.path.join(d, "a.tfrecord"), os.path.join(d, "b.tfrecord")]
    >>> with RoundRobinWriter(paths) as w:
    ...   for r in [b"1", b"2", b"3"]:
    ...     w.write(r)
    >>> w.counts
    [2, 1]
  """

  def __init__(self, output_files):
    self.output_files = list(output_files)
    self.counts = [0] * len(self.output_files)
    self._stack = None
    self._writers = []
    self._next = 0

  def __enter__(self):
    self._stack = contextlib.ExitStack()
    self._stack.__enter__()
    try:
      for path in self.output_files:
        tmp = self._stack.enter_context(atomic_path(path))
        writer = _open_record_writer(tmp)
        self._stack.callback(writer.close)
        self._writers.append(writer)
    except BaseException:
      self._stack.__exit__(*__import__("sys").exc_info())
      raise
    return self

  def write(self, record):
    index = self._next
    self._writers[index].write(record)
    self.counts[index] += 1
    self._next = (index + 1) % len(self._writers)

  def __exit__(self, exc_type, exc, tb):
    # Writers close first (LIFO), then each atomic_path renames its file, or
    # deletes it if an exception is propagating.
    return self._stack.__exit__(exc_type, exc, tb)


class _FramedFile(object):
  """A local TFRecord file written without TensorFlow (fast.frame_records),
  byte-identical to tf.io.TFRecordWriter's."""

  _CHUNK = 4096

  def __init__(self, path, frame_records):
    self._file = open(path, "wb")  # pylint: disable=consider-using-with
    self._frame = frame_records
    self._pending = []

  def write(self, record):
    self._pending.append(record)
    if len(self._pending) >= self._CHUNK:
      self._flush()

  def _flush(self):
    if self._pending:
      self._file.write(self._frame(self._pending))
      self._pending = []

  def close(self):
    try:
      self._flush()
    finally:
      self._file.close()


def _open_record_writer(path):
  """A TFRecord writer for `path`: without TensorFlow (slow to import) for a
  local file when the compiled framing is built."""
  frame = fast.record_framing()
  if frame is not None and atomic.is_local(path):
    return _FramedFile(path, frame)
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  return tf.io.TFRecordWriter(path)


def parse_record(record):
  """Feature name -> list of values of one Example of int64/float lists
  (a wire-format reader: logging records needs no TensorFlow).

  Example:
    >>> enc = ExampleEncoder(max_seq_length=4, max_predictions_per_seq=1,
    ...                      max_id=200)
    >>> features = parse_record(enc.encode([101, 150, 102], 1, [1], [9],
    ...                                    False))
    >>> features["input_ids"], features["masked_lm_weights"]
    ([101, 150, 102, 0], [1.0])
  """
  features = {}
  for field, body in _fields(_only_field(record, 1)):  # Example.features
    if field != 1:  # Features.feature map entries
      continue
    name, value = None, b""
    for key, part in _fields(body):
      if key == 1:
        name = part.decode("utf-8")
      elif key == 2:
        value = part
    values = []
    for kind, lst in _fields(value):  # Feature: 2 float_list, 3 int64_list
      for _, packed in _fields(lst):
        if kind == 2:
          values.extend(x for (x,) in struct.iter_unpack("<f", packed))
        elif kind == 3:
          values.extend(_varints(packed))
    features[name] = values
  return features


def _only_field(message, number):
  return b"".join(body for field, body in _fields(message) if field == number)


def _read_varint(data, pos):
  result = shift = 0
  while True:
    byte = data[pos]
    pos += 1
    result |= (byte & 0x7F) << shift
    if byte < 0x80:
      return result, pos
    shift += 7


def _varints(data):
  pos, out = 0, []
  while pos < len(data):
    value, pos = _read_varint(data, pos)
    out.append(value - (1 << 64) if value >> 63 else value)
  return out


def _fields(message):
  """(field number, bytes) of each length-delimited field of a message."""
  pos = 0
  while pos < len(message):
    key, pos = _read_varint(message, pos)
    if key & 7 != 2:
      raise ValueError("unexpected protobuf wire type %d" % (key & 7))
    size, pos = _read_varint(message, pos)
    yield key >> 3, message[pos:pos + size]
    pos += size
