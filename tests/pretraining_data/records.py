"""Test helpers: read TFRecords of Examples back as plain Python values."""

import tensorflow as tf


def read_examples(path):
  """List of {feature name: (kind, list of values)} per record of `path`."""
  examples = []
  for record in tf.compat.v1.io.tf_record_iterator(path):
    examples.append(parse_example(record))
  return examples


def parse_example(record):
  example = tf.train.Example.FromString(record)
  parsed = {}
  for name, feature in example.features.feature.items():
    kind = feature.WhichOneof("kind")
    parsed[name] = (kind, list(getattr(feature, kind).value))
  return parsed


def read_all(paths):
  """Records of several round-robin files, in the order they were written."""
  per_file = [read_examples(p) for p in paths]
  merged = []
  for i in range(max(len(x) for x in per_file)):
    for examples in per_file:
      if i < len(examples):
        merged.append(examples[i])
  return merged, [len(x) for x in per_file]


def first_difference(ours, theirs):
  """None if equal, else a message naming the first differing instance."""
  if len(ours) != len(theirs):
    return "%d instances vs the original's %d" % (len(ours), len(theirs))
  for index, (a, b) in enumerate(zip(ours, theirs)):
    if a != b:
      names = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
      return "instance %d differs in %s: ours %s, original %s" % (
          index, names, [a.get(n) for n in names], [b.get(n) for n in names])
  return None
