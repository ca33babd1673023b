"""NerPreprocessor: the ids and masks of run_ner's features
(features.sentence_windows) for sentences that fit one window, on the
multilingual corpus, from word lists and from raw text; truncation."""

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


def _check(got, word_lists, reference):
  checked = 0
  for i, words in enumerate(word_lists):
    windows = features.sentence_windows(words, list(range(len(words))), SEQ,
                                        SEQ // 2, reference)
    if len(windows) > 1:
      continue
    w, = windows
    for key in KEYS:
      assert got[key][i].numpy().tolist() == getattr(w, key), (key, words)
    # word_positions: the first pieces, in word order (label_ids = index).
    positions = [p for p in got["word_positions"][i].numpy() if p > 0]
    assert [w.label_ids[p] for p in positions] == list(range(len(words)))
    checked += 1
  return checked


@pytest.mark.parametrize("lower", [True, False])
def test_features_equal_run_ners_on_the_multilingual_corpus(lower):
  lines = _sentences()
  reference = tokenization.FullTokenizer(minilm_vocab_path(),
                                         do_lower_case=lower)
  layer = NerPreprocessor(minilm_vocab_path(), labels=["O"],
                          do_lower_case=lower, max_seq_length=SEQ)
  # Word lists (each word tokenized as run_ner does) ...
  word_lists = [l.split() for l in lines]
  checked = _check(layer(tf.ragged.constant(word_lists)), word_lists,
                   reference)
  # ... and raw text, split into BasicTokenizer's words.
  basic = [reference.basic_tokenizer.tokenize(l) for l in lines]
  checked_raw = _check(layer(tf.constant(lines)), basic, reference)
  assert layer.words(lines[:20]) == basic[:20]
  assert checked > 60 and checked_raw > 40, (checked, checked_raw)
  assert any(any("\u4e00" <= c <= "\u9fff" for c in l) for l in lines)


def test_long_sentences_are_truncated_and_tags_checked():
  vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "##b"]
  layer = NerPreprocessor(vocab, labels=["O", "X"], max_seq_length=6)
  # Pieces a ##b a ##b a: the first 4 fit; the third word's first piece
  # does not, so 2 words are labelled.
  got = layer(tf.ragged.constant([["ab", "ab", "a"], [""]]))
  assert got["input_ids"].numpy().tolist() == [[2, 4, 5, 4, 5, 3],
                                               [2, 1, 3, 0, 0, 0]]
  assert got["label_mask"].numpy().tolist() == [[0, 1, 0, 1, 0, 0],
                                                [0, 1, 0, 0, 0, 0]]
  labels = layer.piece_labels(got, tf.constant([[1, 1, 1, 0], [1, 0, 0, 0]]))
  assert labels.numpy().tolist() == [[0, 1, 0, 1, 0, 0], [0, 1, 0, 0, 0, 0]]
  # Dense word lists: trailing "" pads.
  dense = layer(tf.constant([["ab", "a"], ["a", ""]]))
  assert dense["label_mask"].numpy().tolist() == [[0, 1, 0, 1, 0, 0],
                                                  [0, 1, 0, 0, 0, 0]]
  assert layer.tag_ids([["X", "O"]]).tolist() == [[1, 0, 0, 0]]
  with pytest.raises(InputError, match="'B-X' .* not one of the labels"):
    layer.tag_ids([["O", "B-X"]])
