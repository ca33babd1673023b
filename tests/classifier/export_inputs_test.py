"""The SavedModel's in-graph input building (the one packer,
tokenization.packing) equals convert_single_example and the sliding
windows of long_text."""

import tensorflow as tf

import tokenization
from bert_tf2.classifier.features import _truncate_seq_pair
from bert_tf2.classifier.features import convert_single_example
from bert_tf2.classifier.processors import InputExample
from tests.classifier import glue_fixtures
from tokenization import packing
from tokenization.tf_text import InGraphTokenizer


def _packed(ids_a, ids_b, max_seq_length, cls_id, sep_id):
  out = packing.pack_inputs(ids_a, ids_b, max_seq_length, cls_id, sep_id)
  return out["input_ids"], out["input_mask"], out["segment_ids"]


def test_pair_lengths_match_truncate_seq_pair():
  grid = [(a, b, m) for a in range(0, 12) for b in range(0, 12)
          for m in range(0, 14)]
  want = []
  for a, b, m in grid:
    ta, tb = list(range(a)), list(range(b))
    _truncate_seq_pair(ta, tb, m)
    want.append((len(ta), len(tb)))
  la = tf.constant([g[0] for g in grid], tf.int64)
  lb = tf.constant([g[1] for g in grid], tf.int64)
  got_a, got_b = [], []
  for m in sorted({g[2] for g in grid}):
    idx = [i for i, g in enumerate(grid) if g[2] == m]
    a, b = packing.truncated_lengths(tf.gather(la, idx), tf.gather(lb, idx),
                                     tf.constant(m, tf.int64))
    got_a += list(zip(idx, a.numpy().tolist(), b.numpy().tolist()))
  got = [(a, b) for _, a, b in sorted(got_a)]
  assert got == want


def test_in_graph_inputs_equal_convert_single_example():
  vocab = glue_fixtures.minilm_vocab()
  pairs = [(a, b) for a, b in glue_fixtures.PAIRS] + [
      ("A single sentence with no partner.", ""),
      ("short", "a much longer second segment " * 6),
      ("a much longer first segment " * 6, "short"),
      ("", ""), ("Hello, World!", "   ")]
  tokenizer = tokenization.FullTokenizer(vocab, do_lower_case=True)
  in_graph = InGraphTokenizer(vocab, do_lower_case=True)
  v = tokenization.load_vocab(vocab)
  for max_seq_length in (6, 16, 64):
    ids, mask, segments = _packed(
        in_graph.tokenize(tf.constant([a for a, _ in pairs])),
        in_graph.tokenize(tf.constant([b for _, b in pairs])),
        max_seq_length, v["[CLS]"], v["[SEP]"])
    for i, (a, b) in enumerate(pairs):
      f = convert_single_example(i, InputExample("x", a, b, "0"), ["0"],
                                 max_seq_length, tokenizer)
      assert ids[i].numpy().tolist() == f.input_ids, (max_seq_length, a, b)
      assert mask[i].numpy().tolist() == f.input_mask
      assert segments[i].numpy().tolist() == f.segment_ids


class _IdTokenizer(object):
  """Texts of space-separated integers -> those ids (for window tests)."""

  def tokenize(self, text):
    return [int(t) for t in text.split()]

  def convert_tokens_to_ids(self, tokens):
    return [{"[CLS]": 101, "[SEP]": 102}.get(t, t) for t in tokens]


def test_in_graph_sliding_windows_equal_convert_example_to_windows():
  from bert_tf2.classifier import long_text  # pylint: disable=g-import-not-at-top
  texts = [(" ".join(str(10 + i) for i in range(n_a)),
            " ".join(str(50 + i) for i in range(n_b)))
           for n_a in (0, 1, 5, 9, 10, 23) for n_b in (0, 1, 3, 12)]
  as_ragged = lambda rows: tf.ragged.constant(
      [[int(t) for t in r.split()] for r in rows], dtype=tf.int64,
      row_splits_dtype=tf.int64)
  for max_seq_length, doc_stride in ((8, 2), (12, 5), (12, 100), (16, 1)):
    window_a, window_b, example = packing.pair_windows(
        as_ragged([a for a, _ in texts]), as_ragged([b for _, b in texts]),
        max_seq_length, doc_stride)
    ids, mask, segments = _packed(window_a, window_b, max_seq_length, 101,
                                  102)
    want = []
    for i, (a, b) in enumerate(texts):
      want += long_text.convert_example_to_windows(
          i, InputExample("x", a, b or None, "0"), ["0"], max_seq_length,
          doc_stride, _IdTokenizer())
    assert example.numpy().tolist() == [f.example_index for f in want]
    assert ids.numpy().tolist() == [f.input_ids for f in want]
    assert mask.numpy().tolist() == [f.input_mask for f in want]
    assert segments.numpy().tolist() == [f.segment_ids for f in want]
