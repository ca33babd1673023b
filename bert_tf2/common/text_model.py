"""A task model on raw strings: `TextModel(preprocessor, task)`.

`task(preprocessor(x))`, with Keras' `fit(texts, labels)`, `evaluate` and
`predict(texts)`; for pairs, x is a tuple `(texts_a, texts_b)`. Compiled
without a loss it trains on the task's original loss (labels as y) and
reports the task's metrics; compiled with one, it is any Keras model.
`build(cls, directory, ...)` builds one with a `BertPreprocessor` from a
pretrained directory. A saved `.keras` file loads with
`keras.saving.load_model(path)` once `bert_tf2.models` is imported (that
import registers every task class). This module imports no task.
"""

import threading
import weakref

import keras
import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.common import InputError
from bert_tf2.common import batch_parts
from bert_tf2.common import example_order
from bert_tf2.common import fit_data
from bert_tf2.common import frozen_weights
from bert_tf2.common import padding
from bert_tf2.common import text_inputs
from bert_tf2.common.preprocessor import BertPreprocessor
from modeling import layers
from modeling import lora


@layers.serializable
class TextModel(lora.Adaptable, keras.Model):
  """`task(preprocessor(x))`: a task model on raw strings (see module).

  `enable_lora(rank)`, `save_lora_weights(path)`, `load_lora_weights(path)`
  act on the task model (`modeling.lora`): the file is the task's, so it
  loads onto the task alone or onto another `TextModel` of it.
  """

  # Outside training, the task runs each batch at its longest text, not
  # at max_seq_length (padding is masked out of attention, so outputs that
  # keep no sequence axis are the same to float32 round-off). Outputs per
  # token (NER, SQuAD): False.
  trims_padding = True
  # `predict` on a list (or columns) of examples runs them shortest first
  # by word pieces (`example_order`), where the task trims padding; the
  # outputs come back in input order. False on an instance: input order.
  sort_by_length = True
  # `predict` runs its own step traced once (a one-batch call without
  # Keras' loop); below float32 with the task's dense kernels as graph
  # constants (`frozen_weights`). False on an instance: Keras' predict.
  freezes_weights = True

  def __init__(self, preprocessor, task, **kwargs):
    kwargs.setdefault("name", "text_" + task.name)
    super().__init__(**kwargs)
    self.preprocessor = preprocessor
    self.task = task
    self.built = True  # The task model's variables exist.

  def call(self, inputs, training=False):
    features = self.task_features(self.preprocessor(inputs), training)
    outputs = self.run_task(features, training)
    merge = getattr(self.preprocessor, "merge_windows", None)
    return outputs if merge is None else merge(features, outputs)

  def run_task(self, features, training=False):
    """The task model on features; in `predict`'s step, on parts of the
    batch side by side (`batch_parts`)."""
    if training or _PARTS.count < 2:
      return self.task(features, training=training)
    return batch_parts.in_parts(self.task, features, _PARTS.count)

  def task_features(self, features, training=False):
    """The preprocessor's features cut to the batch's longest text outside
    training where `trims_padding` (`padding.trim_to_longest`)."""
    if training or not self.trims_padding:
      return features
    return padding.trim_to_longest(features,
                                   int(self.preprocessor.max_seq_length))

  def serving_settings(self):
    """The settings the task's `serving.server` takes from this model
    (SQuAD's decoding; none by default)."""
    return {}

  def lora_parts(self):
    """The task model's (see `modeling.lora.Adaptable`)."""
    return self.task.lora_parts()

  def save(self, filepath, overwrite=True, zipped=None,
           include_optimizer=True, **kwargs):
    """`keras.Model.save`; include_optimizer=False (which Keras 3 ignores
    for `.keras` files) leaves out the optimizer and its state: the file
    reloads uncompiled."""
    if getattr(self.task, "is_int8", False):
      raise InputError("%s: an int8 model runs in ONNX Runtime and has no "
                       ".keras form; load it in float32 to save it"
                       % (filepath,))
    model = self if include_optimizer else self.without_optimizer()
    return keras.Model.save(model, filepath, overwrite=overwrite,
                            zipped=zipped, **kwargs)

  def without_optimizer(self):
    """This model, uncompiled: a new wrapper of the same layers."""
    config = {k: v for k, v in self.get_config().items()
              if k not in ("preprocessor", "task")}
    return type(self)(self.preprocessor, self.task, **config)

  def check_trainable(self):
    """Refuses to train an int8 model (it runs in ONNX Runtime)."""
    if getattr(self.task, "is_int8", False):
      raise InputError("fit: an int8 model runs in ONNX Runtime and does "
                       "not train; load it in float32 (or bfloat16) to fit")

  def fit(self, x=None, y=None, batch_size=None, **kwargs):
    self.check_trainable()
    x, y, batch_size = _as_dataset(x, y, batch_size,
                                   kwargs.pop("sample_weight", None),
                                   shuffle=kwargs.get("shuffle", True))
    data = kwargs.get("validation_data")
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
    """`keras.Model.predict` on the task's `examples`, run shortest first
    where `sort_by_length` and `trims_padding`; outputs in x's order."""
    x = self.examples(x)
    order = None
    rows = (len(example_order.rows(x)) if isinstance(x, (list, tuple))
            else None)
    if (self.sort_by_length and self.trims_padding and rows is not None and
        rows > (batch_size or 32)):  # One batch: as is.
      order = example_order.length_order(x, self.example_lengths(x))
      x = example_order.take(x, order)
    outputs = None
    # Keras' loop for its own arguments, and for a progress bar asked for
    # by name (verbose=1 or 2; "auto" and 0 take the quicker loop).
    if (not set(kwargs) - {"verbose"} and
        kwargs.get("verbose", "auto") in ("auto", 0)):
      outputs = self._predict_without_keras_loop(x, batch_size or 32)
    if outputs is None:
      x, _, batch_size = _as_dataset(x, None, batch_size)
      self._freeze_for(x.element_spec if isinstance(x, tf.data.Dataset)
                       else None)
      outputs = super().predict(x, batch_size=batch_size, **kwargs)
    if order is None:
      return outputs
    inverse = np.argsort(order)
    return keras.tree.map_structure(lambda a: _gather_rows(a, inverse),
                                    outputs)

  def _predict_without_keras_loop(self, x, batch_size):
    """The outputs of texts x (a list or columns) by the frozen step
    called once a batch from Python, without a Dataset or Keras' predict
    loop (about 3 ms a batch less here): the same outputs, NumPy arrays
    (writable copies, as Keras' are). None where that does not apply: x
    not a list of texts (or columns), no frozen step, or outputs of
    different shapes from batch to batch (Keras' loop makes those
    ragged)."""
    rows = (len(example_order.rows(x)) if isinstance(x, (list, tuple))
            else 0)
    if not rows:
      return None
    batches = []
    for start in range(0, rows, batch_size):
      batch = _one_batch(example_order.take(
          x, range(start, min(start + batch_size, rows))))
      if batch is None:
        return None
      batches.append(batch)
    spec = _batch_spec(batches[0])
    if any(_batch_spec(batch) != spec for batch in batches[1:]):
      return None  # E.g. lists of words, as many in each batch but not all.
    frozen = self._freeze_for(spec)
    if frozen is None:
      return None
    parts = [keras.tree.map_structure(np.array, frozen(batch))
             for batch in batches]
    if len(parts) == 1:
      return parts[0]
    leaves = [keras.tree.flatten(part) for part in parts]
    if any(a.shape[1:] != b.shape[1:] for row in leaves[1:]
           for a, b in zip(leaves[0], row)):
      return None
    return keras.tree.pack_sequence_as(
        parts[0], [np.concatenate(column) for column in zip(*leaves)])

  def predict_step(self, data):
    frozen = _FROZEN.get(self)
    if frozen is not None:
      return frozen(data)
    return super().predict_step(data)

  def make_predict_function(self, force=False):
    if force:  # A retrace is asked for: the frozen step is traced anew too.
      _FROZEN.pop(self, None)
    return super().make_predict_function(force=force)

  def _freeze_for(self, spec):
    """The `frozen_weights.FrozenStep` `predict` runs for batches of
    `spec` (a Dataset's `element_spec`), traced anew when the weights or
    `spec` changed; None (Keras' step) for spec None, several devices, XLA
    or int8."""
    frozen = _FROZEN.get(self)
    if not (self.freezes_weights and spec is not None and
            not tf.distribute.has_strategy() and not self.jit_compile and
            not getattr(self.task, "is_int8", False) and
            type(self).predict_step is TextModel.predict_step):
      wanted = None
    elif frozen is not None and frozen.matches(self, spec):
      return frozen
    else:
      wanted = frozen_weights.FrozenStep(self, self._step_in_parts, spec)
    if wanted is not frozen:
      if wanted is None:
        _FROZEN.pop(self, None)
      else:
        _FROZEN[self] = wanted
      self.predict_function = None  # Traced with the step it called.
    return wanted

  def _step_in_parts(self, batch):
    """Keras' predict step with the task run in parts (`batch_parts`)."""
    _PARTS.count = batch_parts.predict_parts(self.task.compute_dtype)
    try:
      return super().predict_step(batch)
    finally:
      _PARTS.count = 1

  def example_lengths(self, x, chunk_size=1024):
    """int NumPy array [n]: the word-piece positions each of the n
    examples of x (as `examples` gives them) runs at, counted by the
    preprocessor (`padding.row_lengths`); None where its features do not
    map to examples."""
    data, _, _ = _as_dataset(x, None, chunk_size)
    lengths_of = _row_lengths_function(self.preprocessor)
    lengths = []
    for (texts,) in data:
      per_row, windows = lengths_of(texts)
      found = padding.example_lengths(per_row.numpy(), windows.numpy(),
                                      len(tf.nest.flatten(texts)[0]))
      if found is None:
        return None
      lengths.append(found)
    return np.concatenate(lengths) if lengths else None

  def examples(self, x, what="x"):
    """x checked by the task's one input contract, in the form `call`
    takes; a Dataset or Tensor as it is (the graph checks it). A
    `BertPreprocessor`'s: `text_inputs.check_examples` then `as_columns`;
    a task's own preprocessor's: `text_inputs.check_nested_texts`.

    Raises:
      InputError: one line naming the item (`what`[i]).
    """
    if isinstance(x, (tf.data.Dataset, tf.Tensor, tf.RaggedTensor)):
      return x
    if type(self.preprocessor) is BertPreprocessor:  # pylint: disable=unidiomatic-typecheck
      return text_inputs.as_columns(text_inputs.check_examples(x, what))
    return text_inputs.check_nested_texts(x, what)

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
    """The loss `fit` trains on when compiled without one: the task's."""
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


def _gather_rows(rows, index):
  """rows[index] of a NumPy array or a (Ragged)Tensor (NER's words)."""
  if isinstance(rows, (tf.Tensor, tf.RaggedTensor)):
    return tf.gather(rows, index)
  return np.asarray(rows)[index]


class _Parts(threading.local):
  count = 1  # Set while `predict`'s step is traced (`_step_in_parts`).


_PARTS = _Parts()


# model -> its `frozen_weights.FrozenStep`; preprocessor -> its traced
# `padding.row_lengths` (beside them: an attribute would be saved).
_FROZEN = weakref.WeakKeyDictionary()
_ROW_LENGTHS = weakref.WeakKeyDictionary()


def _row_lengths_function(preprocessor):
  """`padding.row_lengths` of preprocessor(texts), traced once per
  preprocessor."""
  fn = _ROW_LENGTHS.get(preprocessor)
  if fn is None:
    layer = weakref.ref(preprocessor)  # The value must not hold the key.
    fn = tf.function(lambda texts: padding.row_lengths(layer()(texts)),
                     reduce_retracing=True, autograph=False)
    _ROW_LENGTHS[preprocessor] = fn
  return fn


def _columns(x):
  """Texts x as `_as_dataset` slices them: checked, bytes decoded, (a, b)
  pairs made columns (a tuple of lists)."""
  x = text_inputs.check_nested_texts(x)  # bytes ok, bad UTF-8 named.
  if isinstance(x, list) and x and isinstance(x[0], (tuple, list)):
    x = tuple(list(column) for column in zip(*x))  # [(a, b), ...] pairs.
  return tuple(x) if isinstance(x, tuple) else x


def _one_batch(x):
  """Texts x (a list or columns, not a Dataset or Tensor) as the one batch
  `_as_dataset(x, None, len(x))` gives, made without tf.data; None for
  other x or texts a Tensor does not hold (ragged lists)."""
  if isinstance(x, (tf.data.Dataset, tf.Tensor, tf.RaggedTensor)):
    return None
  x = _columns(x)
  leaves = list(x) if isinstance(x, tuple) else [x]
  if (not all(isinstance(leaf, list) for leaf in leaves) or
      len({len(leaf) for leaf in leaves}) != 1):  # The Dataset refuses it.
    return None
  try:
    tensors = [tf.constant(leaf, tf.string) for leaf in leaves]
  except (ValueError, TypeError):
    return None
  return (tuple(tensors) if isinstance(x, tuple) else tensors[0],)


def _batch_spec(batch):
  """The `element_spec` a batched Dataset of `batch`'s structure has."""
  return tf.nest.map_structure(
      lambda t: tf.TensorSpec([None] + t.shape[1:], t.dtype), batch)


def _as_dataset(x, y, batch_size, sample_weight=None, shuffle=False):
  """(x, y, batch_size) as Keras takes them, texts made a Dataset."""
  if isinstance(x, tf.data.Dataset):
    return x, y, batch_size
  x = _columns(x)
  parts = (x,) if y is None else (x, y)
  if sample_weight is not None:
    parts += (sample_weight,)
  data = tf.data.Dataset.from_tensor_slices(parts)
  if shuffle:
    data = data.shuffle(int(data.cardinality()))
  data = data.batch(batch_size or 32)
  return data.with_options(fit_data.no_autotune_options()), None, None


def build(cls, directory, max_seq_length=128, do_lower_case=None,
          long_text=None, doc_stride=None, **kwargs):
  """`TextModel` of `cls.from_checkpoint(directory, **kwargs)` and its vocab.

  E.g. `build(BertClassifier, "uncased_L-12_H-768_A-12", num_labels=2)`;
  long_text="sliding_window", doc_stride=N: run_classifier.py's windows,
  each text's window logits averaged.
  """
  windows = {k: v for k, v in (("long_text", long_text),
                               ("doc_stride", doc_stride)) if v is not None}
  task = cls.from_checkpoint(directory, do_lower_case=do_lower_case, **kwargs)
  found = task.pretrained
  modeling.check_sequence_length(found.config, max_seq_length)
  preprocessor = BertPreprocessor(found.vocab_file,
                                  do_lower_case=found.do_lower_case,
                                  max_seq_length=max_seq_length, **windows)
  return TextModel(preprocessor, task)
