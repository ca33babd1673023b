"""Raw strings -> a task model's features, in the graph; and the two composed.

`BertPreprocessor` is a Keras layer that tokenizes with the in-graph
tokenizer (`tokenization.tf_text`, tensorflow-text) and packs
"[CLS] a [SEP] (b [SEP])" as run_classifier's `convert_single_example`
does: same ids, mask and segments as `FullTokenizer` (except for the
Unicode-version differences that `tokenization.tf_text` documents). The
vocabulary is part of its config, so a `.keras` file carries it.

`TextModel(preprocessor, task)` is a task model that takes raw strings:
`fit(texts, labels)`, `evaluate`, `predict(texts)`; for pairs, x is a tuple
`(texts_a, texts_b)`. Compiled without a loss it trains on the task's
original loss (labels as y) and reports the task's metrics; compiled with
one, it is any Keras model. `build(cls, directory, ...)` builds one with a
`BertPreprocessor` from a pretrained directory (`bert_tf2.common.pretrained`);
`bert_tf2.models.text_model` picks this or a task's own builder (NER,
multiple choice, the sentence encoder). A saved `.keras` file loads with
`keras.saving.load_model(path)` once `bert_tf2.models` is imported (as
keras-hub's models need `import keras_hub`; that import registers every
task class), with no `custom_objects`. This module imports no task.

Other tasks plug in by their own preprocessor layer: any layer that maps
the raw inputs to the task model's feature dict (and has a `get_config`)
can be `TextModel`'s `preprocessor`.

Example:
  >>> pre = BertPreprocessor(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b"],
  ...                        max_seq_length=6)
  >>> pre(tf.constant(["a b", "b"]))["input_ids"].numpy().tolist()
  [[2, 4, 5, 3, 0, 0], [2, 5, 3, 0, 0, 0]]
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.common import fit_data
from bert_tf2.common import raw_text_serving
from modeling import layers
from modeling import lora
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
    do_lower_case: bool; max_seq_length: int; long_text: "truncate" (the
    original) or "sliding_window" (run_classifier.py's
    `--long_text=sliding_window` windows, `doc_stride` pieces apart; the
    features then hold one row per window and "window_example", the text
    of each window, and `merge_windows` averages their outputs)."""
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
    if isinstance(vocabulary, str):
      loaded = vocab_lib.load_vocab(vocabulary)
      vocabulary = [None] * len(loaded)
      for token, index in loaded.items():
        vocabulary[index] = token
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

  def get_config(self):
    config = super().get_config()
    config.update(vocabulary=self.vocabulary,
                  do_lower_case=self.do_lower_case,
                  max_seq_length=self.max_seq_length)
    if self.long_text != "truncate":
      config.update(long_text=self.long_text, doc_stride=self.doc_stride)
    return config


@layers.serializable
class TextModel(lora.Adaptable, keras.Model):
  """`task(preprocessor(x))`: a task model on raw strings (see module).

  `enable_lora(rank)`, `save_lora_weights(path)`, `load_lora_weights(path)`
  act on the task model (`modeling.lora`): the file is the task's, so it
  loads onto the task alone or onto another `TextModel` of it.
  """

  def __init__(self, preprocessor, task, **kwargs):
    kwargs.setdefault("name", "text_" + task.name)
    super().__init__(**kwargs)
    self.preprocessor = preprocessor
    self.task = task
    self.built = True  # The task model's variables exist.

  def call(self, inputs, training=False):
    features = self.preprocessor(inputs)
    outputs = self.task(features, training=training)
    merge = getattr(self.preprocessor, "merge_windows", None)
    return outputs if merge is None else merge(features, outputs)

  def lora_parts(self):
    """The task model's (see `modeling.lora.Adaptable`)."""
    return self.task.lora_parts()

  def save(self, filepath, overwrite=True, zipped=None,
           include_optimizer=True, **kwargs):
    """`keras.Model.save`; include_optimizer=False leaves out the compiled
    optimizer and its state (Adam: two slots per weight), which Keras 3
    ignores for `.keras` files: the file holds the model alone and reloads
    uncompiled (`compile` again before `fit`)."""
    model = self if include_optimizer else self.without_optimizer()
    return keras.Model.save(model, filepath, overwrite=overwrite,
                            zipped=zipped, **kwargs)

  def without_optimizer(self):
    """This model, uncompiled: a new wrapper of the same preprocessor and
    task layers (no weight is copied), with no optimizer, loss or metrics
    of `compile`."""
    config = {k: v for k, v in self.get_config().items()
              if k not in ("preprocessor", "task")}
    return type(self)(self.preprocessor, self.task, **config)

  # Keras' array adapters take no strings: lists/arrays of text become a
  # batched tf.data.Dataset first (as keras-hub's Task does).
  def fit(self, x=None, y=None, batch_size=None, **kwargs):
    x, y, batch_size = _as_dataset(x, y, batch_size,
                                   kwargs.pop("sample_weight", None),
                                   shuffle=kwargs.get("shuffle", True))
    if "validation_data" in kwargs and kwargs["validation_data"] is not None:
      data = kwargs["validation_data"]
      if isinstance(data, tuple) and len(data) == 2:
        kwargs["validation_data"] = _as_dataset(data[0], data[1], None)[0]
    if isinstance(x, tf.data.Dataset):
      kwargs["shuffle"] = False  # Shuffled above (or by the caller).
    x, kwargs = fit_data.fit_arguments(x, kwargs)
    return super().fit(x, y, batch_size=batch_size, **kwargs)

  def evaluate(self, x=None, y=None, batch_size=None, **kwargs):
    x, y, batch_size = _as_dataset(x, y, batch_size,
                                   kwargs.pop("sample_weight", None))
    return super().evaluate(fit_data.dynamic_batch(x), y,
                            batch_size=batch_size, **kwargs)

  def predict(self, x, batch_size=None, **kwargs):
    x, _, batch_size = _as_dataset(x, None, batch_size)
    return super().predict(x, batch_size=batch_size, **kwargs)

  @property
  def metrics(self):
    metrics = super().metrics
    if getattr(self, "_compile_loss", None) is None:
      task_metrics = getattr(self.task, "_task_metrics", {})
      metrics = metrics + list(task_metrics.values())
    return metrics

  def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                   training=True):
    """The task's original loss (`original_loss`) unless compiled with one."""
    if getattr(self, "_compile_loss", None) is not None:
      return super().compute_loss(x=x, y=y, y_pred=y_pred,
                                  sample_weight=sample_weight,
                                  training=training)
    return self.original_loss(x, y, y_pred, sample_weight, training)

  def original_loss(self, x, y, y_pred, sample_weight, training):
    """The loss `fit` trains on when compiled without one (subclasses with
    their own inputs override this): the task's, labels as y."""
    return self.task.compute_loss(x=self.preprocessor(x), y=y, y_pred=y_pred,
                                  sample_weight=sample_weight,
                                  training=training)

  def get_config(self):
    return {"name": self.name, "trainable": self.trainable,
            "preprocessor": keras.saving.serialize_keras_object(
                self.preprocessor),
            "task": keras.saving.serialize_keras_object(self.task)}

  @classmethod
  def from_config(cls, config):
    config = dict(config)
    config["preprocessor"] = keras.saving.deserialize_keras_object(
        config["preprocessor"])
    config["task"] = keras.saving.deserialize_keras_object(config["task"])
    return cls(**config)


def _as_dataset(x, y, batch_size, sample_weight=None, shuffle=False):
  """(x, y, batch_size) as Keras takes them, texts made a Dataset."""
  if isinstance(x, tf.data.Dataset) or x is None:
    return x, y, batch_size
  x = raw_text_serving.check_nested_texts(x)  # bytes ok, bad UTF-8 named.
  if isinstance(x, list) and x and isinstance(x[0], (tuple, list)):
    x = tuple(list(column) for column in zip(*x))  # [(a, b), ...] pairs.
  x = tuple(x) if isinstance(x, tuple) else x
  parts = (x,) if y is None else (x, y)
  if sample_weight is not None:
    parts += (sample_weight,)
  data = tf.data.Dataset.from_tensor_slices(parts)
  if shuffle:
    data = data.shuffle(int(data.cardinality()))
  return data.batch(batch_size or 32), None, None


def build(cls, directory, max_seq_length=128, do_lower_case=None, **kwargs):
  """`TextModel` of `cls.from_checkpoint(directory, **kwargs)` and its vocab.

  E.g. `build(BertClassifier, "uncased_L-12_H-768_A-12", num_labels=2)`;
  long_text="sliding_window", doc_stride=N: run_classifier.py's windows
  (`BertPreprocessor`), each text's window logits averaged.
  Users call `bert_tf2.models.text_model`, which sends the task models with
  a text model of their own (NER, multiple choice, the sentence encoder) to
  their module's `build`, and every other one here.
  """
  windows = {k: kwargs.pop(k) for k in ("long_text", "doc_stride")
             if k in kwargs}
  task = cls.from_checkpoint(directory, do_lower_case=do_lower_case, **kwargs)
  found = task.pretrained
  modeling.check_sequence_length(found.config, max_seq_length)
  preprocessor = BertPreprocessor(found.vocab_file,
                                  do_lower_case=found.do_lower_case,
                                  max_seq_length=max_seq_length, **windows)
  return TextModel(preprocessor, task)
