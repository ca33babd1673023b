"""Raw strings or word lists -> run_ner's windows, first-piece labelling.

`NerPreprocessor` is a Keras layer that builds run_ner.py's features in
the graph, windows included (`bert_tf2.ner.features.sentence_windows`,
tested equal): each word is labelled in ONE window, its home (the
max-context window of its first piece). Outputs, for the `num_windows`
windows of a batch of texts (at least one per text, in order):

  input_ids, input_mask, segment_ids   int32 [num_windows, max_seq_length]
  label_mask      1 on the home first piece of each word, 0 elsewhere
                  (int32 [num_windows, max_seq_length])
  word_windows    int32 [batch, max_words]: the window (row) of each word's
                  home (0 for no word)
  word_positions  int32 [batch, max_words]: the position of each word's
                  first piece in its home window (0 for no word)

max_words is the number of words of the batch's longest sentence;
`word_values` reads each word's value at its home.

Inputs are raw texts, tf.string [batch] (split into words as
BasicTokenizer does), or word lists, a tf.string RaggedTensor [batch,
(words)] (or dense [batch, words], "" padding). `labels` (the tag names by
id) travel in the config, so a saved model predicts tag strings.

Example:
  >>> pre = NerPreprocessor(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "ann",
  ...                        "##a", "lee"], labels=["O", "B-PER", "I-PER"],
  ...                       max_seq_length=6)
  >>> f = pre(tf.constant(["Anna lee"]))
  >>> f["input_ids"].numpy().tolist(), f["label_mask"].numpy().tolist()
  ([[2, 4, 5, 6, 3, 0]], [[0, 1, 0, 1, 0, 0]])
  >>> f["word_windows"].numpy().tolist(), f["word_positions"].numpy().tolist()
  ([[0, 0]], [[1, 3]])

  A longer sentence, windows of 4 pieces every 2 (the second word's home
  is the first window, the third's the second):
  >>> pre = NerPreprocessor(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b",
  ...                        "c", "d", "e"], max_seq_length=6, doc_stride=2)
  >>> f = pre(tf.constant(["a b c d e"]))
  >>> f["input_ids"].numpy().tolist()
  [[2, 4, 5, 6, 7, 3], [2, 6, 7, 8, 3, 0]]
  >>> f["label_mask"].numpy().tolist()
  [[0, 1, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0]]
  >>> f["word_windows"].numpy().tolist(), f["word_positions"].numpy().tolist()
  ([[0, 0, 0, 1, 1]], [[1, 2, 3, 2, 3]])
"""

import keras
import numpy as np
import tensorflow as tf

from tokenization.errors import InputError
from bert_tf2.common.preprocessor import BertPreprocessor
from modeling import layers
from tokenization import packing

FEATURES = ("input_ids", "input_mask", "segment_ids", "label_mask")
DEFAULT_DOC_STRIDE = 64  # run_ner.py's --doc_stride default.


@layers.serializable
class NerPreprocessor(BertPreprocessor):
  """Texts [batch] or words [batch, (words)] -> int32 NER window features."""

  def __init__(self, vocabulary, labels=("O",), do_lower_case=True,
               max_seq_length=128, doc_stride=None, **kwargs):
    """Args: as `BertPreprocessor`; labels: tag names by id; doc_stride:
    word pieces between window starts, in [1, max_seq_length - 2]
    (default: run_ner.py's 64, at most max_seq_length - 2)."""
    super().__init__(vocabulary, do_lower_case=do_lower_case,
                     max_seq_length=max_seq_length, **kwargs)
    self.labels = [str(t) for t in labels]
    self.max_pieces = self.max_seq_length - 2
    if self.max_pieces < 1:
      raise InputError("max_seq_length=%d: must be at least 3"
                       % self.max_seq_length)
    if doc_stride is None:
      doc_stride = min(DEFAULT_DOC_STRIDE, self.max_pieces)
    self.doc_stride = int(doc_stride)
    if not 1 <= self.doc_stride <= self.max_pieces:
      raise InputError("doc_stride=%d: must be in [1, max_seq_length - 2 = "
                       "%d]" % (self.doc_stride, self.max_pieces))
    self.unk_id = self.vocabulary.index(self.tokenizer.unk_token)
    # Ragged word lists reach `call` as they are (Keras would pad them).
    self._convert_input_args = False
    self._allow_non_tensor_positional_args = True

  def words_and_pieces(self, inputs):
    """(words: tf.string RaggedTensor [batch, (words)], pieces: int64
    RaggedTensor [batch, (words), (pieces)]) of texts or word lists."""
    if not isinstance(inputs, tf.RaggedTensor):
      inputs = tf.convert_to_tensor(inputs, tf.string)
      if inputs.shape.rank == 2:  # Dense word lists: trailing "" pad.
        inputs = tf.RaggedTensor.from_tensor(inputs, padding="")
    if isinstance(inputs, tf.RaggedTensor):
      words = inputs.flat_values
      pieces = self.tokenizer.tokenize(words)             # [n, (pieces)]
      # A word without pieces is [UNK] (features.word_pieces).
      lengths = tf.maximum(pieces.row_lengths(), 1)
      width = tf.cast(tf.reduce_max(tf.concat([lengths, [1]], 0)), tf.int32)
      dense = pieces.to_tensor(default_value=self.unk_id)
      dense = tf.pad(dense, [[0, 0], [0, width - tf.shape(dense)[1]]],
                     constant_values=self.unk_id)
      pieces = tf.RaggedTensor.from_tensor(dense, lengths=lengths)
      return inputs, tf.RaggedTensor.from_row_splits(pieces,
                                                     inputs.row_splits)
    words = self.tokenizer.split_words(tf.reshape(inputs, [-1]))
    return words, self.tokenizer._wordpiece.tokenize(words)  # pylint: disable=protected-access

  def call(self, inputs):
    return self.window_features(self.words_and_pieces(inputs)[1])

  def window_features(self, pieces):
    """Word pieces int64 [batch, (words), (pieces)] -> the features of the
    module docstring."""
    text_pieces = pieces.merge_dims(1, 2)                # [batch, (pieces)]
    row, start, size = packing.window_spans(
        text_pieces.row_lengths(), self.max_pieces, self.doc_stride)
    feats = packing.pack_inputs(
        packing.take_windows(text_pieces, row, start, size), None,
        self.max_seq_length, cls_id=self.tokenizer.cls_id,
        sep_id=self.tokenizer.sep_id)
    # Each word's home: the max-context window of its first piece (its
    # index in the batch's pieces), and that piece's position there.
    first = pieces.values.row_starts()                   # [words]
    home = tf.gather(packing.max_context_windows(
        row, start, size, text_pieces.row_lengths()), first)
    position = (first - tf.gather(text_pieces.row_starts(),
                                  tf.gather(row, home)) -
                tf.gather(start, home) + 1)              # [CLS] comes first.
    shape = tf.shape(feats["input_ids"], out_type=tf.int64)
    feats["label_mask"] = tf.scatter_nd(
        tf.stack([home, position], 1), tf.ones_like(home, tf.int32), shape)
    dense = lambda t: tf.cast(tf.RaggedTensor.from_row_splits(
        t, pieces.row_splits).to_tensor(0), tf.int32)
    feats["word_windows"] = dense(home)
    feats["word_positions"] = dense(position)
    return feats

  @staticmethod
  def word_values(features, values):
    """Per-window values [num_windows, max_seq_length, ...] -> the value
    of each word at its home first piece, [batch, max_words, ...] (row 0,
    position 0 for padding)."""
    return tf.gather_nd(values, tf.stack(
        [features["word_windows"], features["word_positions"]], -1))

  def piece_labels(self, features, word_labels):
    """Word-level int [batch, >= max_words] -> label_ids int32
    [num_windows, max_seq_length] on each word's home first piece."""
    positions = features["word_positions"]
    width = tf.shape(positions)[1]
    labels = tf.cast(word_labels, tf.int32)[:, :width]
    labels = tf.pad(labels, [[0, 0], [0, width - tf.shape(labels)[1]]])
    kept = positions > 0
    where = tf.stack([tf.boolean_mask(features["word_windows"], kept),
                      tf.boolean_mask(positions, kept)], 1)
    return tf.scatter_nd(where, tf.boolean_mask(labels, kept),
                         tf.shape(features["input_ids"]))

  def tag_ids(self, tags):
    """Lists of tag strings -> int32 numpy [batch, longest list] (0 pads)."""
    index = {t: i for i, t in enumerate(self.labels)}
    out = np.zeros([len(tags), max([len(t) for t in tags] + [1])], np.int32)
    for row, sentence in enumerate(tags):
      ids = []
      for tag in sentence:
        if tag not in index:
          raise InputError("y: tag %r (sentence %d) is not one of the "
                           "labels %s" % (tag, row, self.labels))
        ids.append(index[tag])
      out[row, :len(ids)] = ids
    return out

  def words(self, texts):
    """The words of raw texts as the model sees them: lists of str."""
    split = self.tokenizer.split_words(tf.constant(list(texts)))
    return [[w.decode("utf-8") for w in row] for row in split.to_list()]

  def compute_output_spec(self, inputs):
    spec = {k: keras.KerasTensor((None, self.max_seq_length), "int32")
            for k in FEATURES}
    for k in ("word_windows", "word_positions"):
      spec[k] = keras.KerasTensor((None, None), "int32")
    return spec

  @classmethod
  def from_record(cls, vocabulary, record):
    """As `BertPreprocessor.from_record`, with the record's model labels."""
    return cls(vocabulary, labels=record["model"]["labels"],
               **record["preprocessor"])

  def get_config(self):
    config = super().get_config()
    config.update(labels=self.labels, doc_stride=self.doc_stride)
    return config

