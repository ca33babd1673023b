"""pack_inputs: same features as the original convert_single_example."""

from hypothesis import given, settings, strategies as st
import tensorflow as tf

import tokenization
from tests.tokenization.conftest import minilm_vocab_path
from tokenization import packing
from tokenization import tf_text


def _original_pack(a, b, max_seq_length, cls_id=1, sep_id=2,
                   empty_pair=False):
  """run_classifier.py's truncation and layout, written out plainly (a
  second sequence without tokens is a single one: `if tokens_b:`; with
  empty_pair it stays a pair, as run_squad.py's window without context)."""
  a = list(a)
  b = list(b) if b or (empty_pair and b is not None) else None
  if b is None:
    a = a[:max_seq_length - 2]
    ids, seg = [cls_id] + a + [sep_id], [0] * (len(a) + 2)
  else:
    while len(a) + len(b) > max_seq_length - 3:
      if len(a) > len(b):
        a.pop()
      else:
        b.pop()
    ids = [cls_id] + a + [sep_id] + b + [sep_id]
    seg = [0] * (len(a) + 2) + [1] * (len(b) + 1)
  pad = max_seq_length - len(ids)
  return ids + [0] * pad, [1] * len(ids) + [0] * pad, seg + [0] * pad


_IDS = st.lists(st.integers(3, 99), max_size=20)


@settings(max_examples=25, deadline=None)
@given(batch=st.lists(st.tuples(_IDS, _IDS), min_size=1, max_size=4),
       max_seq_length=st.integers(3, 24), pair=st.booleans())
def test_pack_inputs_matches_original(batch, max_seq_length, pair):
  a = tf.ragged.constant([x for x, _ in batch], dtype=tf.int64,
                         row_splits_dtype=tf.int64)
  b = tf.ragged.constant([y for _, y in batch], dtype=tf.int64,
                         row_splits_dtype=tf.int64)
  out = packing.pack_inputs(a, b if pair else None, max_seq_length,
                            cls_id=1, sep_id=2)
  for i, (x, y) in enumerate(batch):
    ids, mask, seg = _original_pack(x, y if pair else None, max_seq_length)
    assert out["input_ids"][i].numpy().tolist() == ids
    assert out["input_mask"][i].numpy().tolist() == mask
    assert out["segment_ids"][i].numpy().tolist() == seg


@settings(max_examples=25, deadline=None)
@given(batch=st.lists(st.tuples(_IDS, _IDS | st.just([])), min_size=1,
                      max_size=4),
       max_seq_length=st.integers(3, 24))
def test_empty_b_pair_packs_an_empty_second_segment(batch, max_seq_length):
  a = tf.ragged.constant([x for x, _ in batch], dtype=tf.int64,
                         row_splits_dtype=tf.int64)
  b = tf.ragged.constant([y for _, y in batch], dtype=tf.int64,
                         row_splits_dtype=tf.int64)
  out = packing.pack_inputs(a, b, max_seq_length, cls_id=1, sep_id=2,
                            empty_b="pair")
  for i, (x, y) in enumerate(batch):
    ids, mask, seg = _original_pack(x, y, max_seq_length, empty_pair=True)
    assert out["input_ids"][i].numpy().tolist() == ids
    assert out["input_mask"][i].numpy().tolist() == mask
    assert out["segment_ids"][i].numpy().tolist() == seg


def test_empty_b_other_than_single_or_pair_is_refused():
  a = tf.ragged.constant([[5]], dtype=tf.int64)
  try:
    packing.pack_inputs(a, a, 8, empty_b="none")
  except ValueError as e:
    assert "empty_b='none'" in str(e)
  else:
    raise AssertionError("empty_b='none' was accepted")


def test_bert_inputs_from_raw_text_match_python_features():
  path = minilm_vocab_path()
  graph = tf_text.InGraphTokenizer(path, do_lower_case=True)
  python = tokenization.FullTokenizer(path, do_lower_case=True)
  text_a = [u"The movie was great, truly!", u"\u4e2d\u6587 caf\u00e9 " * 9]
  text_b = [u"Not at all.", u""]
  out = graph.bert_inputs(tf.constant(text_a), tf.constant(text_b),
                          max_seq_length=16)
  for i, (a, b) in enumerate(zip(text_a, text_b)):
    ids, mask, seg = _original_pack(
        python.tokenize_to_ids(a), python.tokenize_to_ids(b), 16,
        cls_id=python.vocab["[CLS]"], sep_id=python.vocab["[SEP]"])
    assert out["input_ids"][i].numpy().tolist() == ids
    assert out["input_mask"][i].numpy().tolist() == mask
    assert out["segment_ids"][i].numpy().tolist() == seg
  single = graph.bert_inputs(tf.constant(text_a), max_seq_length=8)
  assert single["input_ids"][0].numpy().tolist() == _original_pack(
      python.tokenize_to_ids(text_a[0]), None, 8,
      cls_id=101, sep_id=102)[0]
