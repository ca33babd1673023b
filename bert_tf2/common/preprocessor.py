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
one, it is any Keras model. `text_model(cls, directory, ...)` builds one
from a pretrained directory (`bert_tf2.common.pretrained`), or, for NER,
multiple choice and the sentence encoder, the text model of their own
module (`bert_tf2.ner.text_model`, `bert_tf2.multiple_choice.preprocessor`,
`bert_tf2.embedding.text_model`). A saved `.keras` file loads with
`keras.saving.load_model(path)` once `bert_tf2.models` is imported (as
keras-hub's models need `import keras_hub`), with no `custom_objects`.

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

# Imported so that keras.models.load_model finds every task model once this
# module is imported (keras imports only its own packages by itself).
import modeling
from bert_tf2.common import fit_data
from bert_tf2.common import raw_text_serving
from bert_tf2.classifier import model as _classifier  # pylint: disable=unused-import
from bert_tf2.ner import model as _ner  # pylint: disable=unused-import
from bert_tf2.squad import model as _squad  # pylint: disable=unused-import
from modeling import layers
from modeling import lora
from tokenization import tf_text
from tokenization import vocab as vocab_lib


@layers.serializable
class BertPreprocessor(keras.layers.Layer):
  """tf.string [batch] (or a pair of them) -> int32 feature dict."""

  def __init__(self, vocabulary, do_lower_case=True, max_seq_length=128,
               **kwargs):
    """Args: vocabulary: a vocab.txt path or the list of tokens by id;
    do_lower_case: bool; max_seq_length: int."""
    kwargs.setdefault("trainable", False)
    super().__init__(**kwargs)
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
    single = self.tokenizer.bert_inputs(flat(text_a), None,
                                        max_seq_length=self.max_seq_length)
    if text_b is None:
      return single
    # A text_b without tokens is a single text, as convert_single_example.
    pair = self.tokenizer.bert_inputs(flat(text_a), flat(text_b),
                                      max_seq_length=self.max_seq_length)
    has_b = self.tokenizer.tokenize(flat(text_b)).row_lengths() > 0
    return {k: tf.where(has_b[:, tf.newaxis], pair[k], single[k])
            for k in pair}

  def compute_output_spec(self, inputs):
    shape = (None, self.max_seq_length)
    return {k: keras.KerasTensor(shape, "int32")
            for k in ("input_ids", "input_mask", "segment_ids")}

  def get_config(self):
    config = super().get_config()
    config.update(vocabulary=self.vocabulary,
                  do_lower_case=self.do_lower_case,
                  max_seq_length=self.max_seq_length)
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
    return self.task(self.preprocessor(inputs), training=training)

  def lora_parts(self):
    """The task model's (see `modeling.lora.Adaptable`)."""
    return self.task.lora_parts()

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


def text_model(cls, directory, max_seq_length=128, do_lower_case=None,
               **kwargs):
  """`TextModel` of `cls.from_checkpoint(directory, **kwargs)` and its vocab.

  E.g. `text_model(BertClassifier, "uncased_L-12_H-768_A-12", num_labels=2)`.
  Task models with a text model of their own (NER: labels=[...]; multiple
  choice; the sentence encoder) are built by their module's `build`.
  """
  # Imported here: those modules import this one.
  # pylint: disable=g-import-not-at-top
  from bert_tf2.embedding import text_model as embedding_text
  from bert_tf2.multiple_choice import preprocessor as multiple_choice
  from bert_tf2.ner import text_model as ner_text
  for module in (ner_text, multiple_choice, embedding_text):
    if issubclass(cls, module.TASK):
      return module.build(cls, directory, max_seq_length=max_seq_length,
                          do_lower_case=do_lower_case, **kwargs)
  task = cls.from_checkpoint(directory, do_lower_case=do_lower_case, **kwargs)
  found = task.pretrained
  modeling.check_sequence_length(found.config, max_seq_length)
  preprocessor = BertPreprocessor(found.vocab_file,
                                  do_lower_case=found.do_lower_case,
                                  max_seq_length=max_seq_length)
  return TextModel(preprocessor, task)

