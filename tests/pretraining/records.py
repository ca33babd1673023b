"""Test helper: writes small pretraining TFRecords with the original spec."""

import numpy as np
import tensorflow as tf


def _ints(values):
  return tf.train.Feature(int64_list=tf.train.Int64List(value=list(values)))


def _floats(values):
  return tf.train.Feature(float_list=tf.train.FloatList(value=list(values)))


def make_instance(rng, seq_length, max_pred, vocab_size=1000, cls_id=101,
                  sep_id=102, mask_id=103):
  """Returns a dict of python lists shaped like create_pretraining_data's."""
  num_tokens = int(rng.randint(6, seq_length + 1))
  body = list(rng.randint(200, vocab_size, size=num_tokens - 3))
  split = int(rng.randint(1, len(body)))
  tokens = [cls_id] + body[:split] + [sep_id] + body[split:] + [sep_id]
  segments = [0] * (split + 2) + [1] * (len(tokens) - split - 2)
  candidates = [i for i, t in enumerate(tokens) if t not in (cls_id, sep_id)]
  num_pred = min(max_pred, max(1, int(round(len(tokens) * 0.15))))
  positions = sorted(rng.choice(candidates, size=num_pred, replace=False))
  labels = [tokens[p] for p in positions]
  for p in positions:
    tokens[p] = mask_id
  pad = seq_length - len(tokens)
  pad_pred = max_pred - num_pred
  return {
      "input_ids": tokens + [0] * pad,
      "input_mask": [1] * len(tokens) + [0] * pad,
      "segment_ids": segments + [0] * pad,
      "masked_lm_positions": [int(p) for p in positions] + [0] * pad_pred,
      "masked_lm_ids": labels + [0] * pad_pred,
      "masked_lm_weights": [1.0] * num_pred + [0.0] * pad_pred,
      "next_sentence_labels": [int(rng.randint(0, 2))],
  }


def serialize(instance):
  features = {}
  for name, values in instance.items():
    if name == "masked_lm_weights":
      features[name] = _floats(values)
    else:
      features[name] = _ints(int(v) for v in values)
  example = tf.train.Example(features=tf.train.Features(feature=features))
  return example.SerializeToString()


def write_records(path, num_records, seq_length=16, max_pred=4, seed=0,
                  vocab_size=1000, edit=None):
  """Writes `num_records` records; `edit(index, instance)` may alter one.

  Returns:
    The list of instances written (dicts of python lists).
  """
  rng = np.random.RandomState(seed)
  instances = []
  with tf.io.TFRecordWriter(str(path)) as writer:
    for index in range(num_records):
      instance = make_instance(rng, seq_length, max_pred, vocab_size)
      if edit is not None:
        edit(index, instance)
      instances.append(instance)
      writer.write(serialize(instance))
  return instances


def record_offsets(path):
  """Returns the byte offset where each record of a TFRecord file starts."""
  data = open(path, "rb").read()
  offsets, pos = [], 0
  while pos < len(data):
    offsets.append(pos)
    length = int.from_bytes(data[pos:pos + 8], "little")
    pos += 8 + 4 + length + 4
  return offsets
