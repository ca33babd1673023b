"""`TokenTextModel`: NER on raw strings or word lists, word-level tags.

`text_model(BertTokenClassifier, directory, labels=[...])` builds one: a
`NerPreprocessor` and the `BertTokenClassifier` (`crf=True` for --crf).

* `fit(x, y)`: x a list of texts or of word lists, y one list of tags
  (strings of `labels`) per sentence, one per word (for raw texts:
  `model.preprocessor.words(texts)`).
* `evaluate(x, y)`: the loss and token_accuracy (over first pieces).
* `predict(x)`: one list of tag strings per sentence, one tag per word.

Compiled without a loss the model trains on run_ner's loss; compiled with
one, the loss and metrics see the labelled first pieces only (labels [n],
logits [n, num_labels]). `model(x)` returns the windows' logits,
[num_windows, max_seq_length, num_labels]. See docs/keras.md.
"""

import keras
import tensorflow as tf

import modeling
from tokenization.errors import InputError
from bert_tf2.common import text_inputs
from bert_tf2.common.text_model import TextModel
from bert_tf2.ner.preprocessor import NerPreprocessor
from modeling import layers


@layers.serializable
class TokenTextModel(TextModel):
  """`TextModel` of a `NerPreprocessor` and a `BertTokenClassifier`."""

  trims_padding = False  # Tags per piece: the windows' full length.

  def __init__(self, preprocessor, task, **kwargs):
    super().__init__(preprocessor, task, **kwargs)
    self._convert_input_args = False  # Ragged word lists stay ragged.
    self._allow_non_tensor_positional_args = True

  def _features(self, x, y):
    features = dict(self.preprocessor(x))
    features["label_ids"] = self.preprocessor.piece_labels(features, y)
    return features

  def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                   training=True):
    """run_ner's loss on word-level y; else the compiled one."""
    features = self._features(x, y)
    if getattr(self, "_compile_loss", None) is not None:
      y, y_pred, sample_weight = self._labelled(features, y_pred,
                                                sample_weight)
      return keras.Model.compute_loss(self, x=x, y=y, y_pred=y_pred,
                                      sample_weight=sample_weight,
                                      training=training)
    return self.task.compute_loss(x=features, y=None, y_pred=y_pred,
                                  training=training)

  def compute_metrics(self, x, y, y_pred, sample_weight=None):
    y, y_pred, sample_weight = self._labelled(self._features(x, y), y_pred,
                                              sample_weight)
    return super().compute_metrics(x, y, y_pred, sample_weight=sample_weight)

  @staticmethod
  def _labelled(features, y_pred, sample_weight):
    """Piece labels, logits [n, num_labels] (and weights) of the labelled
    first pieces only."""
    mask = tf.cast(features["label_mask"], tf.bool)
    if sample_weight is not None:
      sample_weight = tf.boolean_mask(
          tf.broadcast_to(tf.reshape(sample_weight, [-1, 1]),
                          tf.shape(mask)), mask)
    return (tf.boolean_mask(features["label_ids"], mask),
            tf.boolean_mask(y_pred, mask), sample_weight)

  def predict_step(self, data):
    x, _, _ = keras.utils.unpack_x_y_sample_weight(data)
    features = self.preprocessor(x)
    logits = self.task(features, training=False)
    word_ids = self.preprocessor.word_values(
        features, self.task.decode(features, logits))
    return {"tag_ids": tf.where(features["word_positions"] > 0, word_ids,
                                -1)}

  def fit(self, x=None, y=None, batch_size=None, **kwargs):
    x, y = self._inputs(x, y)
    data = kwargs.get("validation_data")
    if isinstance(data, tuple) and len(data) == 2:
      kwargs["validation_data"] = tf.data.Dataset.from_tensor_slices(
          self._inputs(*data)).batch(batch_size or 32)
    return super().fit(x, y, batch_size=batch_size, **kwargs)

  def evaluate(self, x=None, y=None, batch_size=None, **kwargs):
    x, y = self._inputs(x, y)
    return super().evaluate(x, y, batch_size=batch_size, **kwargs)

  def predict(self, x, batch_size=None, **kwargs):
    """One list of tag strings per sentence (see module)."""
    x, _ = self._inputs(x, None)
    out = super().predict(x, batch_size=batch_size, **kwargs)
    labels = self.preprocessor.labels
    # Batches of different widths come back as one RaggedTensor.
    rows = out["tag_ids"]
    rows = rows.to_list() if hasattr(rows, "to_list") else rows.tolist()
    return [[labels[i] for i in row if i >= 0] for row in rows]

  def _inputs(self, x, y):
    """Texts or word lists -> tf.string [n] or RaggedTensor [n, (words)];
    tag lists -> int32 [n, max_words] (checked against the words)."""
    if isinstance(x, tf.data.Dataset):
      return x, y
    # bytes accepted wherever str is (texts and words); bad UTF-8 named.
    x = list(text_inputs.check_nested_texts(x, "x"))
    words = None
    if x and not isinstance(x[0], str):
      words = [list(w) for w in x]
      x = tf.ragged.constant(words, dtype=tf.string, row_splits_dtype=tf.int64)
    if y is None:
      return x, None
    y = list(y)
    if len(y) != int(tf.shape(x)[0]):
      raise InputError("y: %d tag lists for %d sentences"
                       % (len(y), int(tf.shape(x)[0])))
    if words is None:
      words = self.preprocessor.words(x)
    for i, (w, t) in enumerate(zip(words, y)):
      if len(w) != len(t):
        raise InputError("y: sentence %d has %d tags for %d words"
                         % (i, len(t), len(w)))
    return x, self.preprocessor.tag_ids(y)


def build(cls, directory, max_seq_length=128, do_lower_case=None,
          labels=None, num_labels=None, doc_stride=None, **kwargs):
  """`TokenTextModel` of `cls.from_checkpoint(directory, ...)`: labels, the
  tag names by id, or num_labels alone (tags "0", "1", ...); kwargs for
  `cls` (e.g. crf=True)."""
  if labels is None:
    if num_labels is None:
      raise InputError("labels: give the tag names (or num_labels)")
    labels = [str(i) for i in range(num_labels)]
  elif num_labels is not None and num_labels != len(labels):
    raise InputError("num_labels: %d but %d labels" % (num_labels,
                                                        len(labels)))
  task = cls.from_checkpoint(directory, do_lower_case=do_lower_case,
                             num_labels=len(labels), **kwargs)
  found = task.pretrained
  modeling.check_sequence_length(found.config, max_seq_length)
  preprocessor = NerPreprocessor(found.vocab_file, labels=labels,
                                 do_lower_case=found.do_lower_case,
                                 max_seq_length=max_seq_length,
                                 doc_stride=doc_stride)
  return TokenTextModel(preprocessor, task)
