"""The `Task` interface: what a model contributes to `runner.Estimator`.

A Task replaces the TF1 `model_fn`: it builds the Keras model, computes the
loss, updates evaluation metrics and produces predictions. The runner owns
everything else (strategy, loops, optimizer, checkpoints, summaries).

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
"""


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
    import modeling  # pylint: disable=g-import-not-at-top
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
    """Names of scalar entries of compute_loss's outputs to log in training.

    The runner averages them over replicas and steps and logs them beside
    the loss (and to TensorBoard), e.g. pretraining's ("masked_lm_loss",
    "next_sentence_loss", ...). Default: none.
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
