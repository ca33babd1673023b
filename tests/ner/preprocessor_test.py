"""NerPreprocessor: the windows, ids and masks of run_ner's features
(features.sentence_windows) on the multilingual corpus, from word lists and
from raw text, long sentences in many windows; each word's home window is
run_ner's (features.merge_predictions)."""

import pytest
import tensorflow as tf

import tokenization
from bert_tf2.ner import features
from bert_tf2.ner.preprocessor import NerPreprocessor
from tests.tokenization.conftest import minilm_vocab_path
from tests.tokenization.corpus import build_corpus
from tokenization.errors import InputError
from tokenization import tf_text

SEQ = 48
KEYS = ("input_ids", "input_mask", "segment_ids", "label_mask")


def _sentences():
  skip = set(tf_text.unicode_version_differences())
  return [l for l in build_corpus(max_bytes=20_000)
          if not any(ord(c) in skip for c in l)][:160]


def _check(got, word_lists, reference, seq=SEQ, stride=SEQ // 2):
  """Compares every window with run_ner's; returns (sentences, windows)."""
  row = 0
  many = 0
  for i, words in enumerate(word_lists):
    windows = features.sentence_windows(words, list(range(len(words))), seq,
                                        stride, reference)
    many += len(windows) > 1
    for w in windows:
      for key in KEYS:
        assert got[key][row].numpy().tolist() == getattr(w, key), (key, words)
      row += 1
    # Each word's home: the window and position where run_ner labels it.
    start, n = row - len(windows), len(words)
    for k in range(n):
      home = windows[int(got["word_windows"][i][k]) - start]
      position = int(got["word_positions"][i][k])
      assert home.label_mask[position] == 1, (words, k)
      assert home.word_index[position] == k, (words, k)
    assert got["word_positions"][i][n:].numpy().tolist() == [0] * (
        got["word_positions"].shape[1] - n)
  assert row == got["input_ids"].shape[0]
  return len(word_lists), many


@pytest.mark.parametrize("lower", [True, False])
def test_features_equal_run_ners_on_the_multilingual_corpus(lower):
  lines = _sentences()
  reference = tokenization.FullTokenizer(minilm_vocab_path(),
                                         do_lower_case=lower)
  layer = NerPreprocessor(minilm_vocab_path(), labels=["O"],
                          do_lower_case=lower, max_seq_length=SEQ,
                          doc_stride=SEQ // 2)
  # Word lists (each word tokenized as run_ner does) ...
  word_lists = [l.split() for l in lines]
  checked, many = _check(layer(tf.ragged.constant(word_lists)), word_lists,
                         reference)
  # ... and raw text, split into BasicTokenizer's words.
  basic = [reference.basic_tokenizer.tokenize(l) for l in lines]
  checked_raw, many_raw = _check(layer(tf.constant(lines)), basic, reference)
  assert layer.words(lines[:20]) == basic[:20]
  assert checked == checked_raw == len(lines) == 160
  assert many > 10 and many_raw > 10, (many, many_raw)
  assert any(any("\u4e00" <= c <= "\u9fff" for c in l) for l in lines)


@pytest.mark.parametrize("stride", [1, 3, 5, 6])
def test_long_sentences_are_windowed_as_run_ner(stride):
  reference = tokenization.FullTokenizer(minilm_vocab_path(),
                                         do_lower_case=True)
  layer = NerPreprocessor(minilm_vocab_path(), max_seq_length=8,
                          doc_stride=stride)
  lines = _sentences()[:40] + ["", "a"]
  basic = [reference.basic_tokenizer.tokenize(l) for l in lines]
  checked, many = _check(layer(tf.constant(lines)), basic, reference, 8,
                         stride)
  assert checked == 42 and many > 20


def test_word_labels_go_to_home_windows_and_tags_are_checked():
  vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "##b"]
  layer = NerPreprocessor(vocab, labels=["O", "X"], max_seq_length=6,
                          doc_stride=2)
  # Pieces a ##b a ##b a: windows [a ##b a ##b], [a ##b a]; the third
  # word's home is the second window.
  got = layer(tf.ragged.constant([["ab", "ab", "a"], [""]]))
  assert got["input_ids"].numpy().tolist() == [[2, 4, 5, 4, 5, 3],
                                               [2, 4, 5, 4, 3, 0],
                                               [2, 1, 3, 0, 0, 0]]
  assert got["label_mask"].numpy().tolist() == [[0, 1, 0, 1, 0, 0],
                                                [0, 0, 0, 1, 0, 0],
                                                [0, 1, 0, 0, 0, 0]]
  assert got["word_windows"].numpy().tolist() == [[0, 0, 1], [2, 0, 0]]
  labels = layer.piece_labels(got, tf.constant([[1, 0, 1], [1, 0, 0]]))
  assert labels.numpy().tolist() == [[0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0],
                                     [0, 1, 0, 0, 0, 0]]
  # Dense word lists: trailing "" pads.
  dense = layer(tf.constant([["ab", "a"], ["a", ""]]))
  assert dense["label_mask"].numpy().tolist() == [[0, 1, 0, 1, 0, 0],
                                                  [0, 1, 0, 0, 0, 0]]
  assert layer.tag_ids([["X", "O"], ["X"]]).tolist() == [[1, 0], [1, 0]]
  with pytest.raises(InputError, match="'B-X' .* not one of the labels"):
    layer.tag_ids([["O", "B-X"]])
  with pytest.raises(InputError, match="doc_stride=5: must be in"):
    NerPreprocessor(vocab, max_seq_length=6, doc_stride=5)
