"""Training pairs of run_embedding.py: JSONL (anchor, positive[, negative]).

One object per line: {"anchor": str, "positive": str, "negative": str
(optional hard negative)}. Either every line of a file has a negative or
none does (a batch is dense).

Example:
  >>> import tempfile, os
  >>> path = os.path.join(tempfile.mkdtemp(), "p.jsonl")
  >>> _ = open(path, "w").write('{"anchor": "q", "positive": "d"}\\n')
  >>> read_pairs(path)
  [Pair(anchor='q', positive='d', negative=None)]
"""

import collections

import numpy as np

from bert_tf2.common import InputError
from bert_tf2.common import text_files

Pair = collections.namedtuple("Pair", ["anchor", "positive", "negative"])
SIDES = ("anchor", "positive", "negative")


def read_pairs(path):
  """list of Pair from a JSONL file (see module docstring)."""
  pairs = []
  for _, where, obj in text_files.json_objects(path):
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
