"""Raw strings or word lists -> NER features with first-piece labelling.

`NerPreprocessor` is a Keras layer (the in-graph tokenizer of
`tokenization.tf_text`) that builds run_ner's features for one window:

  input_ids      [CLS] pieces of word 1, word 2, ... [SEP] 0 ...
  label_mask     1 on the FIRST piece of each word, 0 elsewhere
  word_positions position of each word's first piece ([batch, max_words],
                 max_words = max_seq_length - 2; 0 for no word)

Inputs are either raw texts, tf.string [batch] (split into words as
BasicTokenizer does: CJK characters are words, punctuation is split off),
or word lists, a tf.string RaggedTensor [batch, (words)] (or dense
[batch, words] with trailing "" as padding; each word is
tokenized as run_ner does, `FullTokenizer.tokenize(word)`, an empty result
becoming [UNK]). For a sentence whose pieces fit max_seq_length - 2, the
ids and masks equal `bert_tf2.ner.features.sentence_windows`' (tested).

Longer sentences are TRUNCATED, not windowed: the pieces after the first
max_seq_length - 2 are dropped, and the words whose first piece was dropped
get no label (they add nothing to the loss and get no tag). run_ner.py
windows them instead (`features.sentence_windows`).

`labels` (the tag names by id) travel in the config, so a saved model
predicts tag strings; `tag_ids(tags)` maps word-level tags to a dense
int32 [batch, max_words] array (one `InputError` line for an unknown tag).

Example:
  >>> pre = NerPreprocessor(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "ann",
  ...                        "##a", "lee"], labels=["O", "B-PER", "I-PER"],
  ...                       max_seq_length=6)
  >>> f = pre(tf.constant(["Anna lee"]))
  >>> f["input_ids"].numpy().tolist(), f["label_mask"].numpy().tolist()
  ([[2, 4, 5, 6, 3, 0]], [[0, 1, 0, 1, 0, 0]])
  >>> f["word_positions"].numpy().tolist()
  [[1, 3, 0, 0]]
"""

import keras
import numpy as np
import tensorflow as tf

from bert_tf2.common.errors import InputError
from bert_tf2.common.preprocessor import BertPreprocessor
from modeling import layers
from tokenization import packing

FEATURES = ("input_ids", "input_mask", "segment_ids", "label_mask")


@layers.serializable
class NerPreprocessor(BertPreprocessor):
  """Texts [batch] or words [batch, (words)] -> int32 NER features."""

  def __init__(self, vocabulary, labels=("O",), do_lower_case=True,
               max_seq_length=128, **kwargs):
    """Args: as `BertPreprocessor`, and labels: tag names by id."""
    super().__init__(vocabulary, do_lower_case=do_lower_case,
                     max_seq_length=max_seq_length, **kwargs)
    self.labels = [str(t) for t in labels]
    self.max_words = self.max_seq_length - 2
    self.unk_id = self.vocabulary.index(self.tokenizer.unk_token)
    # Ragged word lists reach `call` as they are (Keras would pad them).
    self._convert_input_args = False
    self._allow_non_tensor_positional_args = True

  def word_pieces(self, inputs):
    """int64 RaggedTensor [batch, (words), (pieces)] of texts or words."""
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
      return tf.RaggedTensor.from_row_splits(pieces, inputs.row_splits)
    words = self.tokenizer.split_words(tf.reshape(inputs, [-1]))
    return self.tokenizer._wordpiece.tokenize(words)  # pylint: disable=protected-access

  def call(self, inputs):
    pieces = self.word_pieces(inputs)
    counts = pieces.row_lengths(axis=2)                   # [batch, (words)]
    first = tf.cumsum(counts.to_tensor(0), axis=1, exclusive=True) + 1
    words = tf.sequence_mask(counts.row_lengths(), tf.shape(first)[1])
    fits = words & (first < self.max_seq_length - 1)      # before [SEP]
    positions = tf.cast(tf.where(fits, first, 0), tf.int32)
    # Only words that fit are kept (each has >= 1 piece): <= max_words.
    positions = positions[:, :self.max_words]
    positions = tf.pad(positions, [[0, 0], [0, self.max_words -
                                            tf.shape(positions)[1]]])
    feats = packing.pack_inputs(pieces.merge_dims(1, 2), None,
                                self.max_seq_length,
                                cls_id=self.tokenizer.cls_id,
                                sep_id=self.tokenizer.sep_id)
    feats["label_mask"] = self.piece_labels(
        {"word_positions": positions}, tf.ones_like(positions))
    feats["word_positions"] = positions
    return feats

  def piece_labels(self, features, word_labels):
    """Word-level int [batch, max_words] -> label_ids int32 [batch, seq]
    on each kept word's first piece (0 elsewhere)."""
    positions = features["word_positions"]
    kept = tf.cast(positions > 0, tf.int32)
    labels = tf.cast(word_labels, tf.int32)[:, :self.max_words] * kept
    return tf.reduce_sum(tf.one_hot(positions, self.max_seq_length,
                                    dtype=tf.int32) * labels[..., None],
                         axis=1)

  def tag_ids(self, tags):
    """Lists of tag strings -> int32 numpy [batch, max_words] (0 pads)."""
    index = {t: i for i, t in enumerate(self.labels)}
    out = np.zeros([len(tags), self.max_words], np.int32)
    for row, sentence in enumerate(tags):
      ids = []
      for tag in sentence:
        if tag not in index:
          raise InputError("y: tag %r (sentence %d) is not one of the "
                           "labels %s" % (tag, row, self.labels))
        ids.append(index[tag])
      ids = ids[:self.max_words]
      out[row, :len(ids)] = ids
    return out

  def words(self, texts):
    """The words of raw texts as the model sees them: lists of str."""
    split = self.tokenizer.split_words(tf.constant(list(texts)))
    return [[w.decode("utf-8") for w in row] for row in split.to_list()]

  def compute_output_spec(self, inputs):
    spec = {k: keras.KerasTensor((None, self.max_seq_length), "int32")
            for k in FEATURES}
    spec["word_positions"] = keras.KerasTensor((None, self.max_words),
                                               "int32")
    return spec

  def get_config(self):
    config = super().get_config()
    config.update(labels=self.labels)
    return config
