"""Training pairs of run_embedding.py: JSONL (anchor, positive[, negative]).

One object per line: {"anchor": str, "positive": str, "negative": str
(optional hard negative)}. Either every line of a file has a negative or
none does (a batch is dense). Bad lines raise `InputError` naming file and
line.

Example:
  >>> import tempfile, os
  >>> path = os.path.join(tempfile.mkdtemp(), "p.jsonl")
  >>> _ = open(path, "w").write('{"anchor": "q", "positive": "d"}\\n')
  >>> read_pairs(path)
  [Pair(anchor='q', positive='d', negative=None)]
"""

import collections
import json

import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError

Pair = collections.namedtuple("Pair", ["anchor", "positive", "negative"])
SIDES = ("anchor", "positive", "negative")


def read_pairs(path):
  """list of Pair from a JSONL file (see module docstring)."""
  if not tf.io.gfile.exists(path):
    raise InputError("%s: file not found" % path)
  with tf.io.gfile.GFile(path, "r") as f:
    try:
      lines = f.read().splitlines()
    except UnicodeDecodeError as e:
      raise InputError("%s: not UTF-8 text (%s)" % (path, e)) from None
  pairs = []
  for number, line in enumerate(lines, start=1):
    if not line.strip():
      continue
    where = "%s: line %d" % (path, number)
    try:
      obj = json.loads(line)
    except ValueError as e:
      raise InputError("%s: not JSON (%s)" % (where, e)) from None
    if not isinstance(obj, dict):
      raise InputError("%s: expected a JSON object" % where)
    for side in SIDES[:2]:
      if not isinstance(obj.get(side), str) or not obj[side].strip():
        raise InputError("%s: no \"%s\" text" % (where, side))
    negative = obj.get("negative")
    if negative is not None and (not isinstance(negative, str) or
                                 not negative.strip()):
      raise InputError("%s: \"negative\" is empty or not text" % where)
    if pairs and (negative is None) != (pairs[0].negative is None):
      raise InputError("%s: every line needs a \"negative\" or none does "
                       "(line 1 %s one)" % (
                           where, "has" if pairs[0].negative else "has no"))
    pairs.append(Pair(obj["anchor"], obj["positive"], negative))
  if not pairs:
    raise InputError("%s: no pairs" % path)
  return pairs


def text_features(texts, tokenizer, max_seq_length):
  """[CLS] text [SEP] per text -> int32 arrays [len(texts), max_seq_length]."""
  ids = np.zeros([len(texts), max_seq_length], np.int32)
  mask = np.zeros_like(ids)
  for i, text in enumerate(texts):
    pieces = tokenizer.tokenize(text)[:max_seq_length - 2]
    row = tokenizer.convert_tokens_to_ids(["[CLS]"] + pieces + ["[SEP]"])
    ids[i, :len(row)] = row
    mask[i, :len(row)] = 1
  return {"input_ids": ids, "input_mask": mask,
          "segment_ids": np.zeros_like(ids)}


def pair_features(pairs, tokenizer, max_seq_length):
  """{"<side>_input_ids", ...}: arrays [len(pairs), max_seq_length]."""
  out = {}
  sides = SIDES if pairs[0].negative is not None else SIDES[:2]
  for side in sides:
    feats = text_features([getattr(p, side) for p in pairs], tokenizer,
                          max_seq_length)
    out.update({"%s_%s" % (side, k): v for k, v in feats.items()})
  return out
