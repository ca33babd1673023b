"""Plumbing shared by `runner.Estimator`'s train / evaluate / predict.

Builds the model (once, inside strategy.scope(), under the precision policy)
and the optimizer, names every variable for checkpoints, creates the
distributed datasets (params["batch_size"] = per-replica batch), restores
checkpoints and writes TensorBoard scalars.
"""

import os

from absl import logging
import tensorflow as tf
from tensorflow.core.framework import summary_pb2

from bert_tf2.common import InputError
import optimization
from bert_tf2.runner import checkpoints
from bert_tf2.runner import precision


def _scalar_metadata():
  metadata = summary_pb2.SummaryMetadata()
  metadata.plugin_data.plugin_name = "scalars"
  return metadata.SerializeToString()


_SCALAR_METADATA = _scalar_metadata()


def _dummy_batch(spec):
  """Zeros shaped like one element of `spec` (unknown dims -> 1)."""
  def make(s):
    if s.shape.rank is None:
      raise ValueError("input_fn: a feature of unknown rank (%s); give the "
                       "dataset's tensors static ranks" % (s,))
    shape = [1 if d is None else d for d in s.shape.as_list()]
    if s.dtype == tf.string:
      return tf.fill(shape, "")
    return tf.zeros(shape, s.dtype)
  return tf.nest.map_structure(make, spec)


def _shard_batches(dataset, ctx):
  """This worker's batches: runs of `local replicas` consecutive batches.

  Worker w of P with k replicas gets batches (s*P + w)*k + r, r < k, at
  step s, so replica order (worker-major) is batch order: gathering the
  replicas' outputs across workers keeps the input order.
  """
  pipelines, index = ctx.num_input_pipelines, ctx.input_pipeline_id
  local = max(1, ctx.num_replicas_in_sync // pipelines)
  if local == 1:
    return dataset.shard(pipelines, index)
  return dataset.enumerate().filter(
      lambda i, _: (i // local) % pipelines == index).map(lambda _, x: x)


class EstimatorBase(object):
  """State and helpers of an Estimator; see `runner.Estimator`."""

  def __init__(self, task, config, optimizer_fn=None, init_checkpoint=None,
               train_batch_size=32, eval_batch_size=8, predict_batch_size=8,
               params=None):
    self._task = task
    self._config = config
    self._optimizer_fn = optimizer_fn
    self._init_checkpoint = init_checkpoint
    self._strategy = config.strategy or tf.distribute.get_strategy()
    self._params = dict(params or {})
    replicas = self._strategy.num_replicas_in_sync
    k = config.gradient_accumulation_steps
    self._check_divisible("train_batch_size", train_batch_size, replicas, k)
    self._check_divisible("eval_batch_size", eval_batch_size, replicas)
    self._check_divisible("predict_batch_size", predict_batch_size, replicas)
    self.train_batch_size = int(train_batch_size)
    self.eval_batch_size = int(eval_batch_size)
    self.predict_batch_size = int(predict_batch_size)
    self._model = None
    self._built_modes = set()
    self._optimizer = None
    self._aggregated = False
    self._train_steps = None
    self._metrics = None
    self._eval_fn = None
    self._predict_fn = None
    self._writers = {}

  @staticmethod
  def _check_divisible(flag, batch_size, replicas, accumulation=1):
    batch_size = int(batch_size)
    parts = replicas * accumulation
    if batch_size < 1 or batch_size % parts:
      what = "%d replicas" % replicas
      if accumulation > 1:
        what += " x %d gradient_accumulation_steps" % accumulation
      raise InputError("--%s=%d is not divisible by the %s (= %d); use a "
                       "multiple of %d" % (flag, batch_size, what, parts,
                                           parts))

  # ------------------------------------------------------------ properties
  @property
  def strategy(self):
    return self._strategy

  @property
  def model(self):
    """The Keras model (None until the first train/evaluate/predict)."""
    return self._model

  @property
  def optimizer(self):
    return self._optimizer

  @property
  def config(self):
    return self._config

  @property
  def global_step(self):
    if self._optimizer is None:
      return 0
    return int(precision.inner_optimizer(self._optimizer).iterations.numpy())

  def latest_checkpoint(self):
    return checkpoints.latest_checkpoint(self._config.output_dir)

  # ---------------------------------------------------------------- input
  def _is_chief(self):
    return self._strategy.extended.should_checkpoint

  def _num_input_pipelines(self):
    """Input pipelines (one per worker of a multi-worker job)."""
    return max(1, int(getattr(self._strategy.extended, "_num_workers", 1)))

  def _dataset_fn(self, input_fn, per_replica_batch, mode, skip_batches=0):
    def dataset_fn(ctx):
      params = dict(self._params)
      params.update(batch_size=per_replica_batch, mode=mode,
                    input_context=ctx)
      dataset = input_fn(params)
      if not isinstance(dataset, tf.data.Dataset):
        raise TypeError("input_fn must return a tf.data.Dataset, got %r"
                        % type(dataset))
      if ctx.num_input_pipelines > 1:
        dataset = _shard_batches(dataset, ctx)
      if skip_batches:
        dataset = dataset.skip(skip_batches)
      return dataset
    return dataset_fn

  def _element_spec(self, dataset_fn):
    return dataset_fn(tf.distribute.InputContext()).element_spec

  def _distribute(self, dataset_fn):
    return self._strategy.distribute_datasets_from_function(dataset_fn)

  # ---------------------------------------------------------------- model
  def _ensure_model(self, spec, mode):
    with self._strategy.scope(), precision.policy_scope(
        self._config.precision):
      if self._model is None:
        self._model = self._task.build_model()
      if mode not in self._built_modes:
        dummy = _dummy_batch(spec)
        if mode == "predict":
          self._task.predict_outputs(self._model, dummy)
        else:
          self._task.compute_loss(self._model, dummy, training=False)
        self._built_modes.add(mode)

  def model_variables(self):
    """{original name: variable} of the model; checks trainable coverage."""
    names = dict(self._task.checkpoint_variables(self._model))
    named = {id(v) for v in names.values()}
    missing = [getattr(v, "path", v.name)
               for v in self._model.trainable_variables if id(v) not in named]
    if missing:
      raise ValueError("Task.checkpoint_variables() gives no name to the "
                       "trainable variable(s) %s; they would not be saved"
                       % ", ".join(missing))
    return names

  def _ensure_optimizer(self):
    if self._optimizer is not None:
      return
    if self._optimizer_fn is None:
      raise ValueError("Estimator.train needs optimizer_fn")
    with self._strategy.scope():
      opt = precision.wrap_optimizer(self._optimizer_fn(),
                                     self._config.precision)
      inner = precision.inner_optimizer(opt)
      self._aggregated = isinstance(inner, optimization.BertOptimizer)
      if self._aggregated:
        inner.gradients_aggregated = True
        inner.set_variable_names(self.model_variables())
      else:
        logging.warning("%s is not a BERT optimizer: its slots are not "
                        "checkpointed, a resumed run restarts its moments",
                        type(inner).__name__)
      opt.build(self._model.trainable_variables)
    self._optimizer = opt

  def training_variables(self):
    """Everything a training checkpoint holds, {name: variable}."""
    names = self.model_variables()
    inner = precision.inner_optimizer(self._optimizer)
    if self._aggregated:
      names.update(inner.slot_variables())
    names.update(precision.loss_scale_variables(self._optimizer))
    names["global_step"] = inner.iterations
    return names

  def _checkpoint_step(self, prefix):
    reader = tf.train.load_checkpoint(prefix)
    if reader.has_tensor("global_step"):
      return int(reader.get_tensor("global_step"))
    return checkpoints.checkpoint_step(prefix) or 0

  def _restore_for_inference(self, checkpoint_path):
    """Loads model weights; returns the global step they come from."""
    path = checkpoint_path or self.latest_checkpoint()
    if path:
      checkpoints.restore_exact(self.model_variables(), path)
      return self._checkpoint_step(path)
    if self._init_checkpoint:
      checkpoints.init_model(self.model_variables(), self._init_checkpoint)
      return 0
    logging.warning("No checkpoint in %s and no init_checkpoint: using "
                    "freshly initialized weights", self._config.output_dir)
    return 0

  # -------------------------------------------------------------- summaries
  def _writer(self, subdir):
    if not self._strategy.extended.should_save_summary:
      return None
    if subdir not in self._writers:
      self._writers[subdir] = tf.summary.create_file_writer(
          os.path.join(self._config.output_dir, subdir))
    return self._writers[subdir]

  def _summarize(self, subdir, step, scalars):
    writer = self._writer(subdir)
    if writer is None:
      return
    with writer.as_default(step=step):
      for key, value in scalars.items():
        # tf.summary.write with the scalars plugin's metadata is what
        # tf.summary.scalar does, without needing the tensorboard package.
        tf.summary.write(key, tf.constant(value, tf.float32),
                         metadata=_SCALAR_METADATA)
    writer.flush()

  # ------------------------------------------------------------------ train
  def _save(self, step):
    if not self._is_chief():
      return None
    return checkpoints.save(self.training_variables(),
                            self._config.output_dir, step,
                            self._config.keep_checkpoint_max)

  def _current_lr(self):
    inner = precision.inner_optimizer(self._optimizer)
    return float(inner.learning_rate)
