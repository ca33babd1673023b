"""`TaskModel`: what makes a task model an ordinary Keras model.

The classifier (and multi-label), NER, SQuAD and pretraining models
subclass it. They all take the same feature dict: int [batch_size,
seq_length] "input_ids", "input_mask" and "segment_ids" (other keys are
ignored), and get:

* Keras serialization with no `custom_objects`, and a `dtype` policy
  reaching every sublayer.
* `export(dir)`: a SavedModel with an int32 feature-dict signature (see
  `modeling.export`).
* The original's loss when compiled without one: `model.fit(dataset)` on
  the feature dicts the scripts read from TFRecords (labels inside the
  features); the per-part losses and accuracies are Keras metrics of the
  model. Compiled with a loss, it is any Keras model (`fit(x, y)`).
* The script's steps (`runner.ModelTask`): `loss_and_outputs`,
  `eval_metrics`, `update_eval_metrics`, `predict_outputs`,
  `training_scalars`.

Subclasses implement `task_loss(features, y, y_pred)` -> (scalar loss,
{metric name: (values, weights)}) and `loss_and_outputs`, both through
their task's one loss function (e.g. `classifier.model.classifier_loss`).
"""

import keras
import tensorflow as tf

from bert_tf2.common import fit_data
from bert_tf2.common import pretrained
from modeling import export
from modeling import lora
from modeling import quantized


class TaskModel(export.Exportable, lora.Adaptable, keras.Model):
  """Base class of the task models (see module)."""

  serving_feature_names = ("input_ids", "input_mask", "segment_ids")
  metric_names = ()

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self._task_metrics = {name: keras.metrics.Mean(name=name)
                          for name in self.metric_names}

  def base_config(self):
    """Config entries every task model has (name, trainable, dtype)."""
    return quantized.with_mode(self, {
        "name": self.name, "trainable": self.trainable,
        "dtype": keras.dtype_policies.serialize(self.dtype_policy)})

  def fit(self, x=None, y=None, *args, **kwargs):
    """keras.Model.fit, with `fit_data.dynamic_batch` on x and
    validation_data."""
    x, kwargs = fit_data.fit_arguments(x, kwargs)
    return super().fit(x, y, *args, **kwargs)

  def evaluate(self, x=None, y=None, *args, **kwargs):
    """keras.Model.evaluate, with `fit_data.dynamic_batch` on x."""
    return super().evaluate(fit_data.dynamic_batch(x), y, *args, **kwargs)

  def task_loss(self, features, y, y_pred):
    """Returns (loss, {metric name: (values, weights or None)})."""
    raise NotImplementedError

  def loss_and_outputs(self, features, training=False):
    """(scalar loss, outputs dict) of a batch with its labels."""
    raise NotImplementedError("%s.loss_and_outputs" % type(self).__name__)

  def predict_outputs(self, features):
    """The task's answers, {name: Tensor with leading dimension batch}."""
    raise NotImplementedError("%s.predict_outputs" % type(self).__name__)

  def eval_metrics(self):
    """{name: keras.metrics.Metric} the script's evaluation reports."""
    return {}

  def update_eval_metrics(self, metrics, features, outputs):
    """Adds one batch (`loss_and_outputs`' outputs) to `eval_metrics()`."""
    del metrics, features, outputs

  def training_scalars(self):
    """Scalar entries of the outputs logged beside the training loss."""
    return ()

  @classmethod
  def from_checkpoint(cls, directory, do_lower_case=None, **kwargs):
    """The model with the weights of a pretrained directory
    (`pretrained.load`), e.g. `BertClassifier.from_checkpoint(
    "uncased_L-12_H-768_A-12", num_labels=2)`."""
    return pretrained.load(cls, directory, do_lower_case, **kwargs)

  def lora_parts(self):
    """LoRA in the encoder; the file holds it and the head (`modeling.lora`)."""
    return self.bert, self

  @classmethod
  def from_config(cls, config):
    """The model of `get_config()` (constructor arguments, as saved; int8
    models quantized again, see `modeling.quantized`)."""
    return quantized.build(cls, config)

  @property
  def metrics(self):
    """Keras' metrics; the task metrics only when compiled without a loss
    (else one named like a compiled metric would hide it with 0)."""
    metrics = super().metrics
    if getattr(self, "_compile_loss", None) is None:
      return metrics
    task = {id(m) for m in self._task_metrics.values()}
    return [m for m in metrics if id(m) not in task]

  def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                   training=True):
    """The original loss when compiled without a loss; else Keras' own."""
    if getattr(self, "_compile_loss", None) is not None:
      return super().compute_loss(x=x, y=y, y_pred=y_pred,
                                  sample_weight=sample_weight,
                                  training=training)
    if not isinstance(x, dict):
      raise ValueError(
          "%s was compiled without a loss: fit/evaluate need feature dicts "
          "with the labels inside (see %s.task_loss), or compile it with a "
          "loss" % (type(self).__name__, type(self).__name__))
    loss, parts = self.task_loss(x, y, y_pred)
    for name, (values, weights) in parts.items():
      self._task_metrics[name].update_state(values, sample_weight=weights)
    losses = [loss] + [tf.cast(l, loss.dtype) for l in self.losses]
    return tf.add_n(losses)


def labels(features, y, key):
  """`y` if given (not a dict), else features[key] (KeyError names it)."""
  if y is not None and not isinstance(y, dict):
    return y
  source = y if isinstance(y, dict) else features
  if key not in source:
    raise KeyError("no %r in the features (compile the model with a loss "
                   "to train on other labels)" % key)
  return source[key]


def example_weights(features):
  """float32 [batch_size] "is_real_example" (0 for padding), or None:
  the metrics' weights (the training loss is the plain mean, as the
  original's)."""
  if "is_real_example" not in features:
    return None
  return tf.cast(tf.reshape(features["is_real_example"], [-1]), tf.float32)


def correct(logits, label_ids):
  """float32 [batch_size]: 1.0 where argmax(logits) is the label.

  Args:
    logits: float Tensor of shape [batch_size, num_classes].
    label_ids: int Tensor of shape [batch_size] (or [batch_size, 1]).
  """
  predicted = tf.argmax(logits, axis=-1, output_type=tf.int32)
  labels = tf.cast(tf.reshape(label_ids, [-1]), tf.int32)
  return tf.cast(tf.equal(predicted, labels), tf.float32)
