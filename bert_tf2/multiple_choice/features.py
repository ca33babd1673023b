"""MultipleChoiceExample -> [num_choices, max_seq_length] model features.

Each (context [+ question], choice) pair is encoded like the classifier's
`convert_single_example` (longest-first pair truncation, zero padding):

  [CLS] context question [SEP] choice [SEP] 0 0 ...

Example:
  >>> class Tok(object):
  ...   vocab = {"[CLS]": 1, "[SEP]": 2, "a": 3, "b": 4, "c": 5}
  ...   def tokenize(self, text): return text.split()
  ...   def convert_tokens_to_ids(self, tokens):
  ...     return [self.vocab[t] for t in tokens]
  >>> from bert_tf2.multiple_choice.reader import MultipleChoiceExample
  >>> ex = MultipleChoiceExample("1", "a a", None, ["b", "c"], 1, "x")
  >>> f = convert_example(ex, 6, Tok())
  >>> f.input_ids, f.label_id
  ([[1, 3, 3, 2, 4, 2], [1, 3, 3, 2, 5, 2]], 1)
"""

import collections

import numpy as np

from bert_tf2.classifier.features import _truncate_seq_pair
from bert_tf2.classifier.features import build_inputs

FEATURE_NAMES = ("input_ids", "input_mask", "segment_ids")


class MultipleChoiceFeatures(collections.namedtuple(
    "MultipleChoiceFeatures",
    ["input_ids", "input_mask", "segment_ids", "label_id"])):
  """Lists of num_choices lists of max_seq_length ints, and the label."""


def first_text(example):
  """text_a of every pair: the context, then the question if any."""
  if example.question:
    return example.context + " " + example.question
  return example.context


def convert_example(example, max_seq_length, tokenizer):
  """One example -> MultipleChoiceFeatures (label_id 0 when unlabelled)."""
  tokens_context = tokenizer.tokenize(first_text(example))
  rows = {name: [] for name in FEATURE_NAMES}
  for choice in example.choices:
    tokens_a = list(tokens_context)
    tokens_b = tokenizer.tokenize(choice)
    _truncate_seq_pair(tokens_a, tokens_b, max_seq_length - 3)
    _, ids, mask, segments = build_inputs(tokens_a, tokens_b, max_seq_length,
                                          tokenizer)
    rows["input_ids"].append(ids)
    rows["input_mask"].append(mask)
    rows["segment_ids"].append(segments)
  label = example.label if example.label is not None else 0
  return MultipleChoiceFeatures(rows["input_ids"], rows["input_mask"],
                                rows["segment_ids"], label)


def features_to_arrays(features):
  """List of MultipleChoiceFeatures -> dict of int32 numpy arrays.

  input_ids/input_mask/segment_ids: [num_examples, num_choices, seq_length];
  label_ids: [num_examples].
  """
  out = {name: np.asarray([getattr(f, name) for f in features], np.int32)
         for name in FEATURE_NAMES}
  out["label_ids"] = np.asarray([f.label_id for f in features], np.int32)
  return out

