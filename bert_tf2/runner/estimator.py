"""`Estimator`: train / evaluate / predict a `Task` on a tf.distribute strategy.

The TPUEstimator replacement (same life cycle: checkpoints in output_dir,
resume from the latest one, init_checkpoint for a fresh start). The
compiled training loop is `runner.loops.TrainSteps`; the input side is
`runner.inputs`.
"""

import os
import time

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import frozen_weights
import modeling
import optimization
from bert_tf2.runner import checkpoints
from bert_tf2.runner import gather
from bert_tf2.runner import inputs
from bert_tf2.runner import loops
from bert_tf2.runner import periodic_eval
from bert_tf2.runner import cpu_probe
from bert_tf2.runner import precision
from bert_tf2.runner import preemption
from bert_tf2.runner import progress
from bert_tf2.runner import summaries

# A checkpoint whose continuation went NaN/Inf is renamed model.ckpt-N.<tag>.
NON_FINITE_TAG = "nonfinite-loss"

# A long evaluation logs how far it got this often (batches, elapsed).
EVAL_LOG_EVERY_SECS = 5.0

# Training logs a progress line at least this often, whatever
# iterations_per_loop is: slow steps run in shorter calls (`_steps_per_call`).
TRAIN_LOG_EVERY_SECS = 20.0


class NonFiniteLossError(FloatingPointError, InputError):
  """The training loss or the weights became NaN or Inf; nothing was saved.

  An `InputError` (usually a too-high learning rate or bad data): a script
  reports it as one `error: ...` line, exit status 1.
  """


class Estimator(object):
  """Trains, evaluates and predicts with a `runner.Task`.

  Args:
    task: a `runner.Task`.
    config: a `runner.RunConfig`.
    optimizer_fn: zero-argument callable returning a Keras optimizer, e.g.
      `lambda: optimization.create_optimizer(5e-5, 1000, 100)`; needed by
      `train` only. Called inside strategy.scope().
    init_checkpoint: model weights to start from when output_dir holds no
      checkpoint (as in the original, output_dir's latest checkpoint wins).
    train_batch_size: GLOBAL batch per optimizer step; split over replicas
      (and gradient-accumulation micro-batches); must divide evenly.
    eval_batch_size, predict_batch_size: global batches, split over replicas.
    params: extra entries for the input_fn's params dict.
    max_seq_length: the training sequence length, recorded with the batch
      size in output_dir/batch_shape.json; a resume with other values is
      refused (`checkpoints.check_batch_shape`). None: the batch size only.
  """

  def __init__(self, task, config, optimizer_fn=None, init_checkpoint=None,
               train_batch_size=32, eval_batch_size=8, predict_batch_size=8,
               params=None, max_seq_length=None):
    self._task = task
    self._config = config
    self._optimizer_fn = optimizer_fn
    self._init_checkpoint = init_checkpoint
    self._strategy = config.strategy or tf.distribute.get_strategy()
    self._params = dict(params or {})
    check_batch_sizes(config, train_batch_size, eval_batch_size,
                      predict_batch_size)
    self.train_batch_size = int(train_batch_size)
    self.eval_batch_size = int(eval_batch_size)
    self.predict_batch_size = int(predict_batch_size)
    self._batch_shape = checkpoints.batch_shape(train_batch_size,
                                                max_seq_length)
    self._shape_recorded = False  # This train call wrote batch_shape.json.
    self._summaries = summaries.ScalarWriter(
        config.output_dir, self._strategy.extended.should_save_summary)
    # Built on first use.
    self._model = None
    self._built_modes = set()   # "train"/"eval"/"predict" traced once each.
    self._optimizer = None
    self._aggregated = False    # The runner averages gradients (BERT opts).
    self._train_steps = None    # loops.TrainSteps
    self._metrics = None
    self._eval_fn = None
    self._predict_fn = None
    self._barrier_fn = None
    self._finite_fn = None      # (names, tf.function): see _check_finite.
    self._continued = []        # Checkpoint prefixes: _set_aside_continued.
    self.stopped_early = False  # Set by train_and_evaluate.

  # ------------------------------------------------------------ properties
  @property
  def config(self):
    """The `RunConfig` (as TPUEstimator's `config`)."""
    return self._config

  @property
  def strategy(self):
    return self._strategy

  @property
  def optimizer(self):
    return self._optimizer

  @property
  def model(self):
    """The Keras model (None until the first train/evaluate/predict)."""
    return self._model

  @property
  def global_step(self):
    if self._optimizer is None:
      return 0
    return int(precision.inner_optimizer(self._optimizer).iterations.numpy())

  def latest_checkpoint(self):
    return checkpoints.latest_checkpoint(self._config.output_dir)

  # ------------------------------------------------------------------ train
  def train(self, input_fn, max_steps):
    """Trains until the global step reaches `max_steps`.

    Resumes from the latest checkpoint in output_dir (model, optimizer
    slots, global_step); else starts from init_checkpoint. Saves
    model.ckpt-STEP every save_checkpoints_steps and at the end.

    Raises:
      TrainingInterrupted: SIGTERM/SIGINT arrived; a checkpoint was saved.
      NonFiniteLossError: the loss or the weights became NaN/Inf; nothing
        is saved, and this run's checkpoints are set aside
        (`_set_aside_continued`).
    """
    return self._train(input_fn, max_steps)

  def train_and_evaluate(self, train_input_fn, eval_input_fn, max_steps,
                         every_n_steps, eval_steps=None, early_stopping=None,
                         keep_best=False, eval_fn=None):
    """Trains to `max_steps`, evaluating every `every_n_steps` on the way.

    Each evaluation runs on the weights of a checkpoint saved at that step
    and at `max_steps`; see `runner.periodic_eval` for what is recorded.

    Args:
      train_input_fn, eval_input_fn: as for `train` and `evaluate`.
      max_steps: train until this global step (unless stopped early).
      every_n_steps: evaluate every this many global steps.
      eval_steps: batches per evaluation (None: the whole eval input).
      early_stopping: a `runner.EarlyStopping` (metric, mode, patience).
      keep_best: keep the best evaluation's checkpoint in output_dir/best/.
      eval_fn: None, or eval_fn(checkpoint) -> results dict (with
        "global_step") instead of the task's metrics, e.g. NER's entity F1
        (the caller checks its early-stopping metric).

    Returns:
      self. `self.stopped_early` says whether early stopping ended training.

    Raises:
      InputError: the early-stopping metric is not one evaluation produces.
    """
    if early_stopping is not None and eval_fn is None:
      with self._strategy.scope():
        early_stopping.check_metric(periodic_eval.metric_names(self._task))
    periodic = periodic_eval.PeriodicEval(
        self._config.output_dir, every_n_steps, early_stopping, keep_best,
        enabled=self._strategy.extended.should_checkpoint)
    stop = periodic_eval.read_stop(self._config.output_dir)
    if stop:
      logging.info("Not training: this run stopped early at global_step %s "
                   "(%s did not improve); delete %s to train further",
                   stop["global_step"], stop["metric"],
                   os.path.join(self._config.output_dir,
                                periodic_eval.STOP_FILE))
      self.stopped_early = True
      return self

    def evaluate_now(checkpoint):
      if eval_fn is not None:
        return periodic.after_evaluation(eval_fn(checkpoint), checkpoint)
      results = self._evaluate(eval_input_fn, eval_steps, restore=False)
      return periodic.after_evaluation(results, checkpoint)
    return self._train(train_input_fn, max_steps,
                       eval_every=periodic.every_n_steps,
                       evaluate_now=evaluate_now)

  def _train(self, input_fn, max_steps, eval_every=0, evaluate_now=None):
    """`train`, with a call to evaluate_now(checkpoint) every
    `eval_every` steps and at max_steps (it returns True to stop)."""
    self.stopped_early = False
    cfg = self._config
    max_steps = int(max_steps)
    strategy = self._strategy
    k = cfg.gradient_accumulation_steps
    replicas = strategy.num_replicas_in_sync
    per_replica = self.train_batch_size // (replicas * k)
    self._build_model(input_fn, per_replica, "train")
    self._build_optimizer()

    latest = self.latest_checkpoint()
    self._continued = [latest] if latest else []
    self._shape_recorded = False
    if latest:
      checkpoints.check_batch_shape(cfg.output_dir, self._batch_shape,
                                    cfg.allow_new_batch_shape)
      checkpoints.restore_exact(
          self.training_variables(), latest,
          optional=precision.loss_scale_variables(self._optimizer))
      logging.info("Resuming from %s", latest)
    elif self._init_checkpoint:
      modeling.init_from_checkpoint(self.model_variables(),
                                    self._init_checkpoint,
                                    flag="init_checkpoint")
    step = self.global_step
    if step >= max_steps:
      logging.info("global_step %d >= max_steps %d: nothing to train", step,
                   max_steps)
      return self
    skip = 0
    if cfg.skip_consumed_batches and step:
      pipelines = self._num_input_pipelines()
      skip = step * k * (replicas // pipelines)
    iterator = iter(strategy.distribute_datasets_from_function(
        inputs.dataset_fn(input_fn, self._params, per_replica, "train",
                          skip)))
    if self._train_steps is None:
      self._train_steps = self._make_train_steps()
    logging.info("Training from step %d to %d: global batch %d on %d "
                 "replica(s)%s, %d steps per loop", step, max_steps,
                 self.train_batch_size, replicas,
                 " x %d micro-batches" % k if k > 1 else "",
                 cfg.iterations_per_loop)
    self._train_loop(iterator, step, max_steps, eval_every, evaluate_now)
    # Whatever comes next (evaluate, predict, export) restores the latest
    # checkpoint: no worker may look before the chief has written it.
    self._wait_for_all_workers()
    return self

  def _wait_for_all_workers(self):
    """A barrier across the workers of a multi-worker job (else a no-op):
    what the chief wrote before it is complete for every worker after it."""
    if self._num_input_pipelines() < 2:
      return
    if self._barrier_fn is None:
      def replica():
        return tf.distribute.get_replica_context().all_reduce(
            tf.distribute.ReduceOp.SUM, tf.ones([]))
      self._barrier_fn = tf.function(lambda: self._strategy.run(replica),
                                     autograph=False)
    arrived = self._strategy.experimental_local_results(self._barrier_fn())
    logging.info("Training over on every worker (%d replicas)",
                 int(arrived[0]))

  def _make_train_steps(self):
    k = self._config.gradient_accumulation_steps
    accumulator = None
    if k > 1:
      with self._strategy.scope():
        accumulator = optimization.GradientAccumulator(
            self._model.trainable_variables)
    return loops.TrainSteps(
        self._task, self._model, self._optimizer, self._strategy,
        self._aggregated, accumulation_steps=k,
        jit_compile=self._config.jit_compile,
        multi_worker=isinstance(self._strategy,
                                tf.distribute.MultiWorkerMirroredStrategy),
        accumulator=accumulator,
        # None: TrainSteps' own rule decides where clustering applies.
        cluster_elementwise=None if self._config.cluster_elementwise
        else False)

  def _train_loop(self, iterator, step, max_steps, eval_every=0,
                  evaluate_now=None):
    """Runs the compiled loop in calls; logs, saves, evaluates, stops on
    signals.

    A call runs up to iterations_per_loop steps (aligned to its multiples),
    never past a save or evaluation step, and (one worker) no longer than
    about TRAIN_LOG_EVERY_SECS at the last call's speed.
    """
    cfg = self._config
    save_every = cfg.save_checkpoints_steps
    last_saved = step
    pending_loss, pending_steps = 0.0, 0
    pending_scalars = np.zeros([len(self._train_steps.scalar_names)])
    last_log_step, log_time = step, time.time()
    start_time = log_time
    rate_from = None  # The ETA's rate: from the first log on (no tracing).
    stalled = 0
    step_secs = None  # Wall time per step of the last call.
    # Workers must agree on each call's steps: no cap from a local clock.
    cap_secs = (TRAIN_LOG_EVERY_SECS if self._num_input_pipelines() < 2
                else float("inf"))
    with preemption.SignalWatcher(cfg.handle_signals) as watcher:
      while step < max_steps:
        n = min(cfg.iterations_per_loop - step % cfg.iterations_per_loop,
                max_steps - step,
                _steps_per_call(step_secs, cap_secs))
        if save_every:
          n = min(n, save_every - step % save_every)
        if eval_every:
          n = min(n, eval_every - step % eval_every)
        called = time.time()
        done, loss_sum, ok, stop, scalar_sums = self._train_steps.loop(
            iterator, tf.constant(n, tf.int32), watcher.stop_flag)
        done = int(done)
        step_secs = (time.time() - called) / max(done, 1)
        new_step = self.global_step
        if not bool(ok):
          bad_step = new_step - 1 if new_step > step else step
          raise NonFiniteLossError("Loss is %s at global_step %d; training "
                                   "stopped. %s" % (
              "NaN" if np.isnan(float(loss_sum)) else "Inf", bad_step,
              self._set_aside_continued()))
        stalled = 0 if new_step > step else stalled + done
        if stalled > 1000:
          raise NonFiniteLossError(
              "no update applied in %d steps at global_step %d: gradients "
              "keep overflowing (float16 loss scale)" % (stalled, step))
        step = new_step
        pending_loss += float(loss_sum)
        pending_steps += done
        pending_scalars += np.asarray(scalar_sums, np.float64)
        stop = bool(stop)
        now = time.time()
        if pending_steps and (step - last_log_step >= cfg.log_step_count_steps
                              or now - log_time >= TRAIN_LOG_EVERY_SECS
                              or step >= max_steps or stop):
          elapsed = max(now - log_time, 1e-9)
          scalars = {"loss": pending_loss / pending_steps}
          scalars.update(zip(self._train_steps.scalar_names,
                             pending_scalars / pending_steps))
          rate = (step - last_log_step) / elapsed
          if rate_from and step > rate_from[0]:
            rate = (step - rate_from[0]) / max(now - rate_from[1], 1e-9)
          scalars.update({
              "learning_rate": float(
                  precision.inner_optimizer(self._optimizer).learning_rate),
              "examples_per_second":
                  pending_steps * self.train_batch_size / elapsed,
              "global_step/sec": (step - last_log_step) / elapsed,
          })
          self._log_training(step, max_steps, now - start_time, rate, scalars)
          pending_loss, pending_steps = 0.0, 0
          pending_scalars[:] = 0.0
          last_log_step, log_time = step, now
          rate_from = rate_from or (step, now)
        evaluate = bool(eval_every and not stop and (
            step % eval_every == 0 or step >= max_steps))
        if (step != last_saved and (
            (save_every and step % save_every == 0) or step >= max_steps or
            stop or evaluate)) or (stop and self.latest_checkpoint() is None):
          self._save(step)
          last_saved = step
        if evaluate and evaluate_now(self.latest_checkpoint()):
          self.stopped_early = True
          return
        if stop:
          signum = watcher.signum or 15  # Another worker was signalled.
          raise preemption.TrainingInterrupted(
              signum, step, self.latest_checkpoint())

  def _log_training(self, step, max_steps, elapsed_secs, rate, scalars):
    """Logs "step S/M (P%), R steps/s, elapsed, ETA, loss = ..., <task>"."""
    task_scalars = "".join(", %s = %.6g" % (name, scalars[name])
                           for name in self._train_steps.scalar_names)
    logging.info("%s, loss = %.6g%s, learning_rate = %.6g, "
                 "examples/sec = %.1f",
                 progress.progress_message(step, max_steps, elapsed_secs,
                                           rate),
                 scalars["loss"], task_scalars, scalars["learning_rate"],
                 scalars["examples_per_second"])
    self._summaries.write("", step, scalars)

  def _set_aside_continued(self):
    """Renames the checkpoints this run resumed from or saved (chief only)
    to `model.ckpt-N.nonfinite-loss.*`, so that a rerun never resumes from
    weights whose continuation diverged.

    Returns:
      a sentence saying what was set aside and what a rerun starts from.
    """
    present = [p for p in dict.fromkeys(self._continued)
               if tf.io.gfile.exists(p + ".index")]
    aside = ["%s.%s" % (p, NON_FINITE_TAG) for p in present]
    if present and self._strategy.extended.should_checkpoint:
      aside = [checkpoints.set_aside(p, NON_FINITE_TAG) for p in present]
      modeling.relist_checkpoints(self._config.output_dir)
    said = ""
    if present:
      said = ("Training continued from %s: set aside as %s (never resumed "
              "from; rename one back to resume from it). " % (
                  ", ".join(os.path.basename(p) for p in present),
                  ", ".join("%s.*" % os.path.basename(a) for a in aside)))
    try:
      latest = self.latest_checkpoint()
    except InputError:  # Only damaged ones left: its own error at rerun.
      latest = None
    if latest:
      start = "resumes from %s" % latest
    elif self._init_checkpoint:
      start = "starts afresh from --init_checkpoint"
    else:
      start = "starts afresh"
    return ("%sNothing was saved for this step; a rerun %s. Try a lower "
            "--learning_rate, or check the input data." % (said, start))

  def _check_finite(self, step):
    """Raises NonFiniteLossError if a float variable a checkpoint would hold
    is NaN or Inf (one compiled call, at save time only: the loss checked
    every step is computed before the update that is saved)."""
    if self._finite_fn is None:
      variables = {name: v for name, v in self.training_variables().items()
                   if tf.as_dtype(v.dtype).is_floating}
      names = sorted(variables)
      values = [variables[n] for n in names]
      self._finite_fn = (names, tf.function(lambda: tf.stack(
          [tf.reduce_all(tf.math.is_finite(tf.convert_to_tensor(v)))
           for v in values]), autograph=False))
    names, finite_fn = self._finite_fn
    finite = finite_fn().numpy()
    if finite.all():
      return
    raise NonFiniteLossError(
        "The checkpoint about to be saved at global_step %d %s; training "
        "stopped. %s" % (step, modeling.non_finite_phrase(
            [n for n, ok in zip(names, finite) if not ok], len(names)),
                         self._set_aside_continued()))

  def _save(self, step):
    """Writes model.ckpt-STEP (chief only).

    Raises:
      NonFiniteLossError: a weight is NaN or Inf (nothing is written).
    """
    self._check_finite(step)
    self._continued.append(os.path.join(self._config.output_dir,
                                        "model.ckpt-%d" % step))
    if not self._strategy.extended.should_checkpoint:
      return
    checkpoints.save(self.training_variables(), self._config.output_dir,
                     step, self._config.keep_checkpoint_max)
    if not self._shape_recorded:
      checkpoints.write_batch_shape(self._config.output_dir,
                                    self._batch_shape)
      self._shape_recorded = True

  # --------------------------------------------------------------- evaluate
  def evaluate(self, input_fn, steps=None, checkpoint_path=None, name=None):
    """Evaluates the latest checkpoint (or checkpoint_path).

    Args:
      input_fn: as for train (params["batch_size"] per replica).
      steps: number of batches; None: until the input is exhausted.
      checkpoint_path: a specific checkpoint to evaluate.
      name: summaries go to output_dir/eval_<name> (default output_dir/eval).

    Returns:
      dict: the task's metrics, "loss" (mean over batches of the batch mean
      loss) and "global_step", as numpy scalars.
    """
    return self._evaluate(input_fn, steps, checkpoint_path, name)

  def _evaluate(self, input_fn, steps=None, checkpoint_path=None, name=None,
                restore=True):
    """`evaluate`; restore=False: the current weights (while training)."""
    strategy = self._strategy
    per_replica = self.eval_batch_size // strategy.num_replicas_in_sync
    make_dataset = self._build_model(input_fn, per_replica, "eval")
    step = (self._restore_for_inference(checkpoint_path) if restore
            else self.global_step)
    if self._metrics is None:
      with strategy.scope():
        self._metrics = dict(self._task.create_metrics())
      # reduce_retracing: batches trimmed to different lengths share traces.
      self._eval_fn = tf.function(self._eval_step, reduce_retracing=True,
                                  autograph=False)
    for metric in self._metrics.values():
      metric.reset_state()
    batch_losses = []
    dataset = strategy.distribute_datasets_from_function(make_dataset)
    started = last_log = time.time()
    for i, features in enumerate(dataset):
      if steps is not None and i >= steps:
        break
      weighted, n = self._eval_fn(features)
      if float(n) > 0:
        batch_losses.append(float(weighted) / float(n))
      if time.time() - last_log >= EVAL_LOG_EVERY_SECS:
        last_log = time.time()
        logging.info("evaluation: %d batches%s, elapsed %s", i + 1,
                     "/%d" % steps if steps is not None else "",
                     progress.format_duration(last_log - started))
    results = {key: np.float32(metric.result())
               for key, metric in self._metrics.items()}
    results["loss"] = np.float32(np.mean(batch_losses) if batch_losses
                                 else np.nan)
    results["global_step"] = np.int64(step)
    logging.info("Evaluation at step %d over %d batches: %s", step,
                 len(batch_losses), ", ".join(
                     "%s = %s" % (k, results[k]) for k in sorted(results)))
    self._summaries.write("eval" + ("_" + name if name else ""), step,
                          {k: float(v) for k, v in results.items()
                           if k != "global_step"})
    return results

  def _eval_step(self, features):
    """(sum of example-weighted losses, examples) over the replicas."""
    def replica(features):
      loss, outputs = self._task.compute_loss(self._model, features,
                                              training=False)
      self._task.update_metrics(self._metrics, features, outputs)
      n = tf.cast(inputs.batch_size_of(features), tf.float32)
      return tf.where(n > 0.0, tf.cast(loss, tf.float32) * n, 0.0), n
    weighted, n = self._strategy.run(replica, args=(features,))
    return tuple(self._strategy.reduce(tf.distribute.ReduceOp.SUM, x, None)
                 for x in (weighted, n))

  # ---------------------------------------------------------------- predict
  def predict(self, input_fn, checkpoint_path=None):
    """Yields one dict of numpy values per example, in input order.

    Every example is returned, including those of a final partial batch.
    In a multi-worker job every worker yields every example (the replicas'
    outputs are gathered across workers), not only its own shard.
    """
    strategy = self._strategy
    multi_worker = self._num_input_pipelines() > 1
    per_replica = self.predict_batch_size // strategy.num_replicas_in_sync
    make_dataset = self._build_model(input_fn, per_replica, "predict")
    self._restore_for_inference(checkpoint_path)
    predict_fn = self._frozen_predict_fn(make_dataset, multi_worker)
    if predict_fn is None and self._predict_fn is None:
      def replica_predict(features):
        outputs = self._task.predict_outputs(self._model, features)
        if multi_worker:
          outputs = gather.gather_rows(outputs, per_replica)
        return outputs
      self._predict_fn = tf.function(
          lambda features: strategy.run(replica_predict, args=(features,)),
          reduce_retracing=True, autograph=False)
    predict_fn = predict_fn or self._predict_fn
    for features in strategy.distribute_datasets_from_function(make_dataset):
      outputs = strategy.experimental_local_results(predict_fn(features))
      if multi_worker:  # Every replica holds every replica's rows.
        outputs = gather.split_gathered(outputs[0])
      merged = {key: np.concatenate([np.asarray(o[key]) for o in outputs],
                                    axis=0)
                for key in outputs[0]}
      sizes = {key: len(v) for key, v in merged.items()}
      if len(set(sizes.values())) > 1:
        raise ValueError("predict_outputs returned different batch sizes: "
                         "%s" % sizes)
      count = next(iter(sizes.values()), 0)
      for i in range(count):
        yield {key: value[i] for key, value in merged.items()}

  def _frozen_predict_fn(self, make_dataset, multi_worker):
    """Below float32, on the default strategy, the predict step traced
    anew with the restored dense weights as constants
    (`bert_tf2.common.frozen_weights`), as the text models' `predict` runs;
    else None."""
    if (multi_worker or self._strategy is not tf.distribute.get_strategy() or
        not modeling.ops.below_float32(self._model.compute_dtype) or
        getattr(self._model, "is_int8", False)):
      return None
    spec = tf.nest.map_structure(
        lambda s: tf.TensorSpec([None] * s.shape.rank, s.dtype),
        inputs.element_spec(make_dataset))
    return frozen_weights.FrozenStep(
        self._model, lambda f: self._task.predict_outputs(self._model, f),
        spec, tracks_weights=False)

  def _num_input_pipelines(self):
    """Input pipelines: one per worker of a multi-worker job, else 1."""
    return max(1, int(getattr(self._strategy.extended, "_num_workers", 1)))

  # ------------------------------------------------- model, optimizer, state
  def _build_model(self, input_fn, per_replica_batch, mode):
    """Builds the model (once) and traces `mode` (once) on a dummy batch.

    Returns:
      the dataset function for `mode` (see `inputs.dataset_fn`).
    """
    make_dataset = inputs.dataset_fn(input_fn, self._params,
                                     per_replica_batch, mode)
    with self._strategy.scope(), precision.policy_scope(
        self._config.precision):
      if self._model is None:
        cpu_probe.warn_if_bfloat16_slower(self._config.precision)
        self._model = self._task.build_model()
      if mode not in self._built_modes:
        dummy = inputs.dummy_batch(inputs.element_spec(make_dataset))
        if mode == "predict":
          self._task.predict_outputs(self._model, dummy)
        else:
          self._task.compute_loss(self._model, dummy, training=False)
        self._built_modes.add(mode)
    return make_dataset

  def _build_optimizer(self):
    """Creates and builds the optimizer (once), float16-wrapped if asked."""
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

  def training_variables(self):
    """Everything a training checkpoint holds, {name: variable}."""
    names = self.model_variables()
    inner = precision.inner_optimizer(self._optimizer)
    if self._aggregated:
      names.update(inner.slot_variables())
    names.update(precision.loss_scale_variables(self._optimizer))
    names["global_step"] = inner.iterations
    return names

  def _restore_for_inference(self, checkpoint_path):
    """Loads model weights; returns the global step they come from."""
    path = checkpoint_path or self.latest_checkpoint()
    if path:
      checkpoints.restore_exact(self.model_variables(), path)
      return checkpoints.global_step_of(path)
    if self._init_checkpoint:
      modeling.init_from_checkpoint(self.model_variables(),
                                    self._init_checkpoint,
                                    flag="init_checkpoint")
    else:
      logging.warning("No checkpoint in %s and no init_checkpoint: using "
                      "freshly initialized weights", self._config.output_dir)
    return 0


def _steps_per_call(step_secs, log_every_secs):
  """Training steps one loop call may run so that it ends within about
  `log_every_secs` at `step_secs` seconds per step (at least 1; one before
  the speed is known).

  >>> _steps_per_call(None, 20.0), _steps_per_call(7.0, 20.0)
  (1, 2)
  >>> _steps_per_call(0.01, 20.0), _steps_per_call(0.5, float("inf"))
  (2000, inf)
  """
  if log_every_secs == float("inf"):
    return float("inf")
  if step_secs is None:
    return 1
  return max(1, int(log_every_secs / max(step_secs, 1e-9)))


def check_batch_sizes(config, train_batch_size, eval_batch_size,
                      predict_batch_size):
  """Raises InputError unless each global batch splits evenly over the
  replicas of `config.strategy` (training: x gradient accumulation steps);
  callable before anything is written."""
  strategy = config.strategy or tf.distribute.get_strategy()
  replicas = strategy.num_replicas_in_sync
  k = config.gradient_accumulation_steps
  _check_divisible("train_batch_size", train_batch_size, replicas, k)
  _check_divisible("eval_batch_size", eval_batch_size, replicas)
  _check_divisible("predict_batch_size", predict_batch_size, replicas)


def _check_divisible(flag, batch_size, replicas, accumulation=1):
  """Raises InputError unless --flag splits evenly over the replicas."""
  batch_size = int(batch_size)
  parts = replicas * accumulation
  if batch_size < 1 or batch_size % parts:
    what = "%d replicas" % replicas
    if accumulation > 1:
      what += " x %d gradient_accumulation_steps" % accumulation
    raise InputError("--%s=%d is not divisible by the %s (= %d); use a "
                     "multiple of %d" % (flag, batch_size, what, parts, parts))
