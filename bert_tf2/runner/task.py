"""The `Task` interface: what a model contributes to `runner.Estimator`.

A Task replaces the TF1 `model_fn`: it builds the Keras model, computes the
loss, updates evaluation metrics and produces predictions. The runner owns
everything else (strategy, loops, optimizer, checkpoints, summaries).
The runner traces a task's methods without AutoGraph (as TPUEstimator
traced a `model_fn`): branch on a tensor with `tf.cond`, not a Python `if`.

Example (a complete toy task):

    class Regression(runner.Task):
      def build_model(self):
        return keras.Sequential([keras.layers.Dense(1, name="dense")])
      def checkpoint_variables(self, model):
        return {"dense/kernel": model.layers[0].kernel,
                "dense/bias": model.layers[0].bias}
      def compute_loss(self, model, features, training):
        pred = model(features["x"], training=training)[:, 0]
        return tf.reduce_mean(tf.square(pred - features["y"])), {"pred": pred}
      def create_metrics(self):
        return {"mae": keras.metrics.MeanAbsoluteError()}
      def update_metrics(self, metrics, features, outputs):
        metrics["mae"].update_state(features["y"], outputs["pred"])
      def predict_outputs(self, model, features):
        return {"pred": model(features["x"], training=False)[:, 0]}

The task models of this package are run through `ModelTask` below.
"""

import weakref

import modeling


class Task(object):
  """Base class; override the methods your model needs."""

  def build_model(self):
    """Returns a keras.Model. Called once, inside `strategy.scope()`."""
    raise NotImplementedError("Task.build_model")

  def checkpoint_variables(self, model):
    """{original_name: variable} for every variable to save and restore.

    Every trainable variable must have a name (the runner checks). The
    default is `modeling.original_variable_names(model)`.
    """
    return modeling.original_variable_names(model)

  def compute_loss(self, model, features, training):
    """Returns (loss, outputs).

    Args:
      model: the model from `build_model`.
      features: dict of Tensors, one replica's batch (leading dim = batch).
      training: bool, True in `Estimator.train` (dropout on).

    Returns:
      loss: scalar float32 Tensor, the mean over this replica's examples.
      outputs: dict of Tensors passed to `update_metrics`.
    """
    raise NotImplementedError("Task.compute_loss")

  def training_scalars(self):
    """Names of scalar entries of compute_loss's outputs to log in training
    (averaged over replicas and steps), e.g. pretraining's "masked_lm_loss".
    """
    return ()

  def create_metrics(self):
    """dict {name: keras.metrics.Metric} for `Estimator.evaluate`."""
    return {}

  def update_metrics(self, metrics, features, outputs):
    """Updates `metrics` (from `create_metrics`) with one replica's batch."""
    del metrics, features, outputs

  def predict_outputs(self, model, features):
    """dict {name: Tensor with leading dimension = batch} for `predict`."""
    raise NotImplementedError("Task.predict_outputs")


class ModelTask(Task):
  """The `Task` of a model that carries its task's maths itself.

  Every task model of this package (`bert_tf2.common.task_model.TaskModel`
  and the embedding `SentenceEncoder`) answers the runner's questions with
  loss_and_outputs, eval_metrics, update_eval_metrics, predict_outputs and
  training_scalars. Predictions keep the features that identify their rows
  (`row_keys`).

  Example:
    >>> import functools, modeling
    >>> from bert_tf2.classifier.model import BertClassifier
    >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
    ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
    >>> task = ModelTask(functools.partial(BertClassifier, cfg, 2))
    >>> sorted(task.create_metrics())
    ['eval_accuracy', 'eval_loss']

  Args:
    model_fn: no-argument callable returning a new model (called inside
      the strategy's scope).
    learning_rate_multipliers: optional {regex on original variable names:
      factor} for the optimizer (`runner.make_estimator`), e.g. NER's
      CRF transitions.
  """

  row_keys = ("unique_ids", "example_index", "is_real_example")

  def __init__(self, model_fn, learning_rate_multipliers=None):
    self._model_fn = model_fn
    self._model = None  # weakref.ref to the last model built.
    self.learning_rate_multipliers = learning_rate_multipliers

  def build_model(self):
    model = self._model_fn()
    self._model = weakref.ref(model)
    return model

  def _any_model(self):
    """The live model built last; else a new one (metric names asked for
    before training: the metrics depend on the model's configuration)."""
    model = self._model() if self._model is not None else None
    return model if model is not None else self._model_fn()

  def compute_loss(self, model, features, training):
    return model.loss_and_outputs(features, training=training)

  def training_scalars(self):
    return tuple(self._any_model().training_scalars())

  def create_metrics(self):
    return self._any_model().eval_metrics()

  def update_metrics(self, metrics, features, outputs):
    self._any_model().update_eval_metrics(metrics, features, outputs)

  def predict_outputs(self, model, features):
    outputs = dict(model.predict_outputs(features))
    for key in self.row_keys:
      if key in features and key not in outputs:
        outputs[key] = features[key]
    return outputs
