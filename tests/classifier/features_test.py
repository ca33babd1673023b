"""TFRecord features, input_fn and sliding windows."""

import os

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.classifier import features as F
from bert_tf2.classifier import long_text
from bert_tf2.classifier.processors import InputExample
from tokenization import windows


class WordTok(object):
  """Whitespace tokenizer with ids = position in a growing vocab."""

  def __init__(self):
    self.vocab = {"[PAD]": 0, "[CLS]": 1, "[SEP]": 2}

  def tokenize(self, text):
    return text.split()

  def convert_tokens_to_ids(self, tokens):
    return [self.vocab.setdefault(t, len(self.vocab)) for t in tokens]


def _read(path, seq, regression=False, windows=False, batch=3):
  fn = F.file_based_input_fn_builder(path, seq, False, False, regression,
                                     with_example_index=windows)
  return list(fn({"batch_size": batch}).as_numpy_iterator())


def test_tf_record_round_trip_original_names(tmp_path):
  path = os.path.join(str(tmp_path), "eval.tf_record")
  examples = [InputExample("a", "w%d x y" % i, "z" if i % 2 else None, "1")
              for i in range(5)] + [F.PaddingInputExample()]
  n = F.file_based_convert_examples_to_features(examples, ["0", "1"], 6,
                                                WordTok(), path)
  assert n == 6
  raw = next(iter(tf.data.TFRecordDataset(path)))
  names = set(tf.train.Example.FromString(raw.numpy()).features.feature)
  assert names == {"input_ids", "input_mask", "segment_ids", "label_ids",
                   "is_real_example"}
  batches = _read(path, 6)
  assert [len(b["input_ids"]) for b in batches] == [3, 3]
  last = batches[-1]
  assert last["is_real_example"].tolist() == [1, 1, 0]
  assert last["input_ids"][-1].tolist() == [0] * 6
  assert last["input_ids"].dtype == np.int32
  assert batches[0]["label_ids"].tolist() == [1, 1, 1]
  assert batches[0]["segment_ids"][1].tolist() == [0, 0, 0, 0, 1, 1]
  assert not [f for f in os.listdir(str(tmp_path)) if ".tmp-" in f]


def test_convert_examples_to_features_matches_single_examples():
  """The original's in-memory converter (its notebooks call it) gives
  `convert_single_example`'s features, in order, padding included."""
  examples = [InputExample("a", "w%d x y" % i, "z" if i % 2 else None, "1")
              for i in range(3)] + [F.PaddingInputExample()]
  tok = WordTok()
  got = F.convert_examples_to_features(examples, ["0", "1"], 6, tok)
  want = [F.convert_single_example(i, ex, ["0", "1"], 6, tok)
          for i, ex in enumerate(examples)]
  assert [(f.input_ids, f.segment_ids, f.label_id, f.is_real_example)
          for f in got] == [(f.input_ids, f.segment_ids, f.label_id,
                             f.is_real_example) for f in want]
  assert got[1].segment_ids == [0, 0, 0, 0, 1, 1]
  assert not got[-1].is_real_example


def test_regression_labels_are_float(tmp_path):
  path = os.path.join(str(tmp_path), "train.tf_record")
  F.file_based_convert_examples_to_features(
      [InputExample("a", "x", "y", 3.25)], [None], 8, WordTok(), path)
  (batch,) = _read(path, 8, regression=True)
  assert batch["label_ids"].dtype == np.float32
  assert batch["label_ids"].tolist() == [3.25]


def test_truncate_seq_pair_longest_first():
  a, b = list("aaaaaa"), list("bb")
  F._truncate_seq_pair(a, b, 5)
  assert (len(a), len(b)) == (3, 2)
  a, b = list("aaaa"), list("bbbb")
  F._truncate_seq_pair(a, b, 5)
  assert (len(a), len(b)) == (3, 2)  # Ties trim b first.


def test_sliding_windows_cover_long_text(tmp_path):
  tok = WordTok()
  words = ["w%d" % i for i in range(20)]
  ex = InputExample("d", " ".join(words), None, "1")
  feats = long_text.convert_example_to_windows(7, ex, ["0", "1"], 8, 3, tok)
  # Windows of 6 word pieces starting at 0, 3, ..., 12 (12 + 6 reaches 18).
  starts = windows.window_starts(20, 6, 3)
  assert starts == [0, 3, 6, 9, 12, 15]
  assert len(feats) == len(starts)
  assert all(f.example_index == 7 and f.label_id == 1 for f in feats)
  ids = tok.convert_tokens_to_ids(words)
  for f, s in zip(feats, starts):
    body = ids[s:s + 6]
    assert f.input_ids[:len(body) + 2] == [1] + body + [2]
  covered = set()
  for s in starts:
    covered.update(range(s, min(s + 6, 20)))
  assert covered == set(range(20))
  pair = InputExample("p", " ".join(words), "q r", "0")
  feats = long_text.convert_example_to_windows(0, pair, ["0", "1"], 10, 4, tok)
  assert all(f.segment_ids.count(1) == 3 for f in feats)  # "q r [SEP]"


def test_windows_tf_record_and_average(tmp_path):
  path = os.path.join(str(tmp_path), "predict.tf_record")
  examples = [InputExample("a", "x " * 15, None, "0"),
              InputExample("b", "short", None, "1")]
  n = long_text.write_windows(examples, ["0", "1"], 6, 2, WordTok(), path)
  batches = _read(path, 6, windows=True, batch=100)
  idx = batches[0]["example_index"].tolist()
  assert len(idx) == n and idx[-1] == 1 and idx.count(0) == n - 1
  logits = np.arange(2 * n, dtype=np.float64).reshape(n, 2)
  avg = windows.mean_of_windows(idx, logits, 2)
  np.testing.assert_allclose(avg[0], logits[:-1].mean(axis=0))
  np.testing.assert_allclose(avg[1], logits[-1])
  with pytest.raises(ValueError, match="without windows"):
    windows.mean_of_windows([0], logits[:1], 2)
