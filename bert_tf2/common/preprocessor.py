"""Raw strings -> a task model's features, in the graph.

`BertPreprocessor` is a Keras layer that tokenizes in the graph
(`tokenization.tf_text`) and packs "[CLS] a [SEP] (b [SEP])" as
run_classifier's `convert_single_example` does. The vocabulary is part of
its config, so a `.keras` file carries it. It is the `preprocessor` of
`text_model.TextModel`. This module imports no task.

Example:
  >>> pre = BertPreprocessor(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b"],
  ...                        max_seq_length=6)
  >>> pre(tf.constant(["a b", "b"]))["input_ids"].numpy().tolist()
  [[2, 4, 5, 3, 0, 0], [2, 5, 3, 0, 0, 0]]
"""

import keras
import tensorflow as tf

from modeling import layers
from tokenization import packing
from tokenization.errors import InputError
from tokenization import tf_text
from tokenization import vocab as vocab_lib


@layers.serializable
class BertPreprocessor(keras.layers.Layer):
  """tf.string [batch] (or a pair of them) -> int32 feature dict."""

  def __init__(self, vocabulary, do_lower_case=True, max_seq_length=128,
               long_text="truncate", doc_stride=128, **kwargs):
    """Args: vocabulary: a vocab.txt path or the list of tokens by id;
    long_text: "truncate" (the original) or "sliding_window"
    (run_classifier.py's windows, `doc_stride` pieces apart: the features
    hold one row per window and "window_example", the text of each)."""
    kwargs.setdefault("trainable", False)
    super().__init__(**kwargs)
    if long_text not in ("truncate", "sliding_window"):
      raise InputError("long_text=%r: expected truncate or sliding_window"
                       % (long_text,))
    if long_text == "sliding_window" and (doc_stride < 1 or
                                          max_seq_length < 4):
      raise InputError("doc_stride=%d, max_seq_length=%d: sliding windows "
                       "need doc_stride >= 1 and max_seq_length >= 4"
                       % (doc_stride, max_seq_length))
    self.long_text = long_text
    self.doc_stride = int(doc_stride)
    if isinstance(vocabulary, str):  # Ids are the tokens' order.
      vocabulary = list(vocab_lib.load_vocab(vocabulary))
    self.vocabulary = list(vocabulary)
    self.do_lower_case = bool(do_lower_case)
    self.max_seq_length = int(max_seq_length)
    self.tokenizer = tf_text.InGraphTokenizer(
        {t: i for i, t in enumerate(self.vocabulary)},
        do_lower_case=self.do_lower_case)
    self.built = True  # No weights (so TextModel.quantize can walk it).

  def call(self, inputs):
    if isinstance(inputs, (tuple, list)):
      text_a, text_b = inputs
    else:
      text_a, text_b = inputs, None
    flat = lambda t: tf.reshape(tf.convert_to_tensor(t, tf.string), [-1])
    text_a = flat(text_a)
    if self.long_text == "truncate":
      # A text_b without tokens is a single text, as convert_single_example
      # (`tokenization.packing.pack_inputs`).
      return self.tokenizer.bert_inputs(
          text_a, None if text_b is None else flat(text_b),
          max_seq_length=self.max_seq_length)
    text_b = tf.fill(tf.shape(text_a), "") if text_b is None else flat(
        text_b)
    window_a, window_b, example = packing.pair_windows(
        self.tokenizer.tokenize(text_a), self.tokenizer.tokenize(text_b),
        self.max_seq_length, self.doc_stride)
    features = packing.pack_inputs(window_a, window_b, self.max_seq_length,
                                   self.tokenizer.cls_id,
                                   self.tokenizer.sep_id)
    features["window_example"] = tf.cast(example, tf.int32)
    return features

  def merge_windows(self, features, outputs):
    """Per-window outputs [num_windows, ...] -> the mean of each text's
    windows [batch, ...] (run_classifier.py's averaged window logits);
    outputs unchanged without windows."""
    if "window_example" not in features:
      return outputs
    example = features["window_example"]
    # Every text has a window: the texts are max(example) + 1.
    texts = tf.reduce_max(tf.concat([example, [-1]], 0)) + 1
    return packing.merge_windows(outputs, example, texts)[0]

  def compute_output_spec(self, inputs):
    shape = (None, self.max_seq_length)
    spec = {k: keras.KerasTensor(shape, "int32")
            for k in ("input_ids", "input_mask", "segment_ids")}
    if self.long_text == "sliding_window":
      spec["window_example"] = keras.KerasTensor((None,), "int32")
    return spec

  @classmethod
  def from_config(cls, config):
    """The layer of a saved config (a `.keras` file's): its vocabulary must
    be the inline list of tokens `get_config` writes, never a path (a
    crafted file could read any local file)."""
    check_saved_vocabulary(cls.__name__, config.get("vocabulary"))
    return cls(**config)

  @classmethod
  def from_record(cls, vocabulary, record):
    """The preprocessor of a run: its model.json record's "preprocessor"
    settings on `vocabulary`.

      >>> record = {"preprocessor": {"do_lower_case": True,
      ...                            "max_seq_length": 16}}
      >>> BertPreprocessor.from_record(["[PAD]", "[UNK]", "[CLS]", "[SEP]"],
      ...                              record).max_seq_length
      16
    """
    return cls(vocabulary, **record["preprocessor"])

  def get_config(self):
    config = super().get_config()
    config.update(vocabulary=self.vocabulary,
                  do_lower_case=self.do_lower_case,
                  max_seq_length=self.max_seq_length)
    if self.long_text != "truncate":
      config.update(long_text=self.long_text, doc_stride=self.doc_stride)
    return config


def check_saved_vocabulary(layer, vocabulary):
  """Raises InputError unless `vocabulary` (from a saved config of `layer`)
  is a list of str: never a path, nothing is opened.

  >>> check_saved_vocabulary("BertPreprocessor", ["[PAD]", "a"])
  >>> try:
  ...   check_saved_vocabulary("BertPreprocessor", "/etc/hostname")
  ... except InputError as e:
  ...   print(e)
  BertPreprocessor config: vocabulary is the str '/etc/hostname', not a list of tokens; a model file carries its vocabulary inline and a path in it is never opened
  """
  if isinstance(vocabulary, (list, tuple)) and all(
      isinstance(token, str) for token in vocabulary):
    return
  if isinstance(vocabulary, str):
    raise InputError(
        "%s config: vocabulary is the str %r, not a list of tokens; a model "
        "file carries its vocabulary inline and a path in it is never "
        "opened" % (layer, vocabulary[:200]))
  raise InputError("%s config: vocabulary is a %s, not a list of tokens "
                   "(str)" % (layer, type(vocabulary).__name__))
