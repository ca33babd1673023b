"""Sentences -> model windows with first-piece labels (the BERT paper's).

A word's tag goes on its FIRST word piece; the other pieces get label_mask
0. A word that tokenizes to nothing becomes [UNK], so every word gets a
prediction.

A sentence of more than max_seq_length - 2 pieces is cut into overlapping
windows that start every `doc_stride` pieces. Each word belongs to ONE
window, its "home": the window where its first piece has the most context
(SQuAD's max-context rule, `tokenization.windows`). label_mask is 1 only on
first pieces in their home window, so the loss sees every word once.

  input_ids   [CLS] p1 p2 ... [SEP] 0 ...
  label_ids   tag id at each home first piece, 0 elsewhere
  label_mask  1 at home first pieces, 0 elsewhere
  word_index  the word's index in the sentence at home first pieces, -1
              elsewhere (kept in Window, not in the records)

Example:
  >>> class Tok:
  ...   vocab = {"[CLS]": 1, "[SEP]": 2, "[UNK]": 3, "a": 4, "##b": 5}
  ...   def tokenize(self, w): return ["a", "##b"] if w == "ab" else [w]
  ...   def convert_tokens_to_ids(self, t): return [self.vocab[x] for x in t]
  >>> w, = sentence_windows(["ab", "a"], [1, 2], 8, 4, Tok())
  >>> w.input_ids, w.label_ids, w.label_mask, w.word_index
  ([1, 4, 5, 4, 2, 0, 0, 0], [0, 1, 0, 2, 0, 0, 0, 0], [0, 1, 0, 1, 0, 0, 0, 0], [-1, 0, -1, 1, -1, -1, -1, -1])
"""

import collections

from tokenization import windows as windows_lib
from bert_tf2.finetune import records

Window = collections.namedtuple(
    "Window", ["example_index", "input_ids", "input_mask", "segment_ids",
               "label_ids", "label_mask", "word_index"])


def word_pieces(words, tokenizer):
  """Returns (pieces, first_piece_positions) of a list of words."""
  pieces, firsts = [], []
  for word in words:
    sub = tokenizer.tokenize(word) or ["[UNK]"]
    firsts.append(len(pieces))
    pieces.extend(sub)
  return pieces, firsts


def sentence_windows(words, label_ids, max_seq_length, doc_stride, tokenizer,
                     example_index=0):
  """Windows (list of Window) of one sentence: `words` (list of str) and
  their `label_ids` (list of int, or None: zeros), windows of
  max_seq_length pieces with [CLS] and [SEP], starts doc_stride apart."""
  max_pieces = max_seq_length - 2
  pieces, firsts = word_pieces(words, tokenizer)
  spans = windows_lib.window_spans(len(pieces), max_pieces, doc_stride)
  best = windows_lib.max_context_windows(spans, len(pieces))
  homes = [best[p] for p in firsts]
  ids = tokenizer.convert_tokens_to_ids(pieces)
  cls_id, sep_id = tokenizer.convert_tokens_to_ids(["[CLS]", "[SEP]"])
  windows = []
  for w, (start, _) in enumerate(spans):
    chunk = ids[start:start + max_pieces]
    n = len(chunk) + 2
    pad = max_seq_length - n
    labels = [0] * max_seq_length
    mask = [0] * max_seq_length
    index = [-1] * max_seq_length
    for k, (p, home) in enumerate(zip(firsts, homes)):
      if home == w:
        pos = p - start + 1
        labels[pos] = label_ids[k] if label_ids is not None else 0
        mask[pos] = 1
        index[pos] = k
    windows.append(Window(example_index, [cls_id] + chunk + [sep_id] +
                          [0] * pad, [1] * n + [0] * pad,
                          [0] * max_seq_length, labels, mask, index))
  return windows


def window_count(sentences, max_seq_length, doc_stride, tokenizer):
  """How many windows (records) `write_windows` makes of `sentences`."""
  return sum(len(windows_lib.window_spans(
      len(word_pieces(s.tokens, tokenizer)[0]), max_seq_length - 2,
      doc_stride))
      for s in sentences)


SEQUENCE_FEATURES = ("input_ids", "input_mask", "segment_ids", "label_ids",
                     "label_mask")


def write_windows(sentences, label_list, max_seq_length, doc_stride,
                  tokenizer, path):
  """Writes the windows of `sentences` (reader.Sentence) to a TFRecord;
  returns them (list of Window, in record order). Tags not in label_list
  (None: unlabelled) get label 0."""
  label_map = {t: i for i, t in enumerate(label_list)}
  windows = []
  for i, s in enumerate(sentences):
    ids = [label_map.get(t, 0) for t in s.tags]
    windows.extend(sentence_windows(s.tokens, ids, max_seq_length,
                                    doc_stride, tokenizer, example_index=i))
  records.write_records(path, (dict(
      {name: getattr(w, name) for name in SEQUENCE_FEATURES},
      example_index=w.example_index) for w in windows))
  return windows


def record_spec(seq_length):
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  return records.sequence_spec(seq_length, SEQUENCE_FEATURES,
                               {"example_index": tf.int64})


def merge_predictions(windows, predicted_ids, sentence_lengths):
  """Windows' per-position label ids (int arrays [max_seq_length], one per
  Window of `windows`) -> one list of label ids per sentence."""
  merged = [[None] * n for n in sentence_lengths]
  for w, ids in zip(windows, predicted_ids, strict=True):
    for pos, k in enumerate(w.word_index):
      if k >= 0:
        merged[w.example_index][k] = int(ids[pos])
  for i, row in enumerate(merged):
    if any(x is None for x in row):
      raise RuntimeError("sentence %d: a word has no prediction" % i)
  return merged
