"""First-piece labelling, overlapping windows and merging back."""

import collections

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from bert_tf2.ner import features
from tokenization import windows


class PieceTokenizer(object):
  """Words "xN" split into N pieces: x, ##x, ##x, ...; "" gives nothing."""

  def __init__(self):
    self.vocab = collections.OrderedDict(
        (t, i) for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]",
                                      "x", "##x", "y"]))

  def tokenize(self, word):
    if word.startswith("x"):
      return ["x"] + ["##x"] * (int(word[1:]) - 1)
    return [word] if word else []

  def convert_tokens_to_ids(self, tokens):
    return [self.vocab[t] for t in tokens]


def test_tag_on_first_piece_other_pieces_ignored():
  tok = PieceTokenizer()
  (w,) = features.sentence_windows(["x3", "y", "x2"], [1, 2, 3], 12, 4, tok)
  assert w.input_ids[:8] == [2, 4, 5, 5, 6, 4, 5, 3]
  assert w.label_ids[:8] == [0, 1, 0, 0, 2, 3, 0, 0]
  assert w.label_mask == [0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]
  assert w.word_index[:7] == [-1, 0, -1, -1, 1, 2, -1]
  assert w.input_mask == [1] * 8 + [0] * 4


def test_word_without_pieces_becomes_unk():
  tok = PieceTokenizer()
  (w,) = features.sentence_windows(["y", "", "y"], [1, 1, 1], 8, 2, tok)
  assert w.input_ids[:5] == [2, 6, 1, 6, 3]
  assert w.label_mask[:5] == [0, 1, 1, 1, 0]


def test_long_sentence_windows_by_hand():
  # 10 one-piece words, max_seq_length 6 -> 4 pieces per window, stride 2:
  # windows start at 0, 2, 4, 6 (6 + 4 reaches the end). A word's home is
  # the window where min(left, right) context is largest (first on ties):
  # word 2 sits at offset 2 of window 0 (context 1) and 0 of window 1 (0).
  tok = PieceTokenizer()
  ws = features.sentence_windows(["y"] * 10, list(range(10)), 6, 2, tok)
  assert [w.input_ids[1:5] for w in ws] == [[6] * 4] * 4
  homes = [None] * 10
  for k, w in enumerate(ws):
    for i in w.word_index:
      if i >= 0:
        assert homes[i] is None
        homes[i] = k
  assert homes == [0, 0, 0, 1, 1, 2, 2, 3, 3, 3]
  assert windows.window_starts(10, 4, 2) == [0, 2, 4, 6]
  assert windows.window_starts(4, 4, 2) == [0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=40),
       st.integers(5, 12), st.data())
def test_windows_cover_every_word_once_and_merge_back(lengths, seq, data):
  tok = PieceTokenizer()
  stride = data.draw(st.integers(1, seq - 2))
  words = ["x%d" % n for n in lengths]
  labels = [i % 7 for i in range(len(words))]
  ws = features.sentence_windows(words, labels, seq, stride, tok,
                                 example_index=0)
  seen = collections.Counter()
  for w in ws:
    assert len(w.input_ids) == seq
    for pos, i in enumerate(w.word_index):
      if i >= 0:
        seen[i] += 1
        assert w.label_mask[pos] == 1
        assert w.label_ids[pos] == labels[i]
        assert w.input_ids[pos] == tok.vocab["x"]  # A first piece.
  assert seen == collections.Counter(range(len(words)))
  # Merging the windows' own labels gives the sentence's labels back.
  merged = features.merge_predictions(ws, [w.label_ids for w in ws],
                                      [len(words)])
  assert merged == [labels]


def test_merge_detects_missing_word():
  tok = PieceTokenizer()
  ws = features.sentence_windows(["y", "y"], [0, 0], 6, 2, tok)
  with pytest.raises(RuntimeError):
    features.merge_predictions(ws, [w.label_ids for w in ws], [3])
