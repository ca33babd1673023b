"""`Estimator.train`: the outer loop (checkpoints, logs, signals, NaN)."""

import time

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
import optimization
from bert_tf2.runner import checkpoints
from bert_tf2.runner import loops
from bert_tf2.runner import precision
from bert_tf2.runner import preemption
from bert_tf2.runner import progress


class NonFiniteLossError(FloatingPointError, InputError):
  """The training loss became NaN or Inf; nothing was saved for that step.

  Also a `common.InputError` (usually a too-high learning rate or bad data),
  so a script reports it as one `error: ...` line, exit status 1, with no
  traceback; the last good checkpoint stays in output_dir.
  """


class TrainingMixin(object):
  """train() for `runner.Estimator` (uses `EstimatorBase` state)."""

  def train(self, input_fn, max_steps):
    """Trains until the global step reaches `max_steps`.

    Resumes from the latest checkpoint in output_dir (model, optimizer
    slots, global_step); else starts from init_checkpoint. Saves
    model.ckpt-STEP every save_checkpoints_steps and at the end.

    Raises:
      TrainingInterrupted: SIGTERM/SIGINT arrived; a checkpoint was saved.
      NonFiniteLossError: the loss became NaN/Inf; the last good checkpoint
        is kept and no checkpoint is written for the bad step.
    """
    cfg = self._config
    max_steps = int(max_steps)
    strategy = self._strategy
    k = cfg.gradient_accumulation_steps
    replicas = strategy.num_replicas_in_sync
    per_replica = self.train_batch_size // (replicas * k)
    self._ensure_model(self._element_spec(
        self._dataset_fn(input_fn, per_replica, "train")), "train")
    self._ensure_optimizer()

    latest = self.latest_checkpoint()
    if latest:
      checkpoints.restore_exact(
          self.training_variables(), latest,
          optional=precision.loss_scale_variables(self._optimizer))
      logging.info("Resuming from %s", latest)
    elif self._init_checkpoint:
      checkpoints.init_model(self.model_variables(), self._init_checkpoint)
    step = self.global_step
    if step >= max_steps:
      logging.info("global_step %d >= max_steps %d: nothing to train", step,
                   max_steps)
      return self
    skip = 0
    if cfg.skip_consumed_batches and step:
      pipelines = max(1, getattr(strategy.extended, "_num_workers", 1))
      skip = step * k * (replicas // pipelines)
    iterator = iter(self._distribute(
        self._dataset_fn(input_fn, per_replica, "train", skip)))
    if self._train_steps is None:
      accumulator = None
      if k > 1:
        with strategy.scope():
          accumulator = optimization.GradientAccumulator(
              self._model.trainable_variables)
      self._train_steps = loops.TrainSteps(
          self._task, self._model, self._optimizer, strategy,
          self._aggregated, accumulation_steps=k,
          jit_compile=cfg.jit_compile,
          multi_worker=isinstance(
              strategy, tf.distribute.MultiWorkerMirroredStrategy),
          accumulator=accumulator)
    logging.info("Training from step %d to %d: global batch %d on %d "
                 "replica(s)%s, %d steps per loop", step, max_steps,
                 self.train_batch_size, replicas,
                 " x %d micro-batches" % k if k > 1 else "",
                 cfg.iterations_per_loop)
    self._train_loop(iterator, step, max_steps)
    return self

  def _train_loop(self, iterator, step, max_steps):
    cfg = self._config
    save_every = cfg.save_checkpoints_steps
    last_saved = step
    pending_loss, pending_steps = 0.0, 0
    last_log_step, log_time = step, time.time()
    start_time = log_time
    # The ETA's rate is measured from the end of the first loop on, which
    # leaves out tracing and compilation.
    rate_from = None
    stalled = 0
    with preemption.SignalWatcher(cfg.handle_signals) as watcher:
      while step < max_steps:
        n = min(cfg.iterations_per_loop, max_steps - step)
        if save_every:
          n = min(n, save_every - step % save_every)
        done, loss_sum, ok, stop = self._train_steps.loop(
            iterator, tf.constant(n, tf.int32), watcher.stop_flag)
        done = int(done)
        new_step = self.global_step
        if not bool(ok):
          raise NonFiniteLossError(
              "Loss is %s at global_step %d; training stopped. The last good "
              "checkpoint (%s) is kept and nothing was saved for this step. "
              "Try a lower --learning_rate, or check the input data." % (
                  "NaN" if np.isnan(float(loss_sum)) else "Inf",
                  new_step - 1 if new_step > step else step,
                  self.latest_checkpoint() or "none"))
        stalled = 0 if new_step > step else stalled + done
        if stalled > 1000:
          raise NonFiniteLossError(
              "no update applied in %d steps at global_step %d: gradients "
              "keep overflowing (float16 loss scale)" % (stalled, step))
        step = new_step
        pending_loss += float(loss_sum)
        pending_steps += done
        stop = bool(stop)
        if pending_steps and (step - last_log_step >= cfg.log_step_count_steps
                              or step >= max_steps or stop):
          now = time.time()
          elapsed = max(now - log_time, 1e-9)
          scalars = {
              "loss": pending_loss / pending_steps,
              "learning_rate": self._current_lr(),
              "examples_per_second":
                  pending_steps * self.train_batch_size / elapsed,
              "global_step/sec": (step - last_log_step) / elapsed,
          }
          rate = scalars["global_step/sec"]
          if rate_from and step > rate_from[0]:
            rate = (step - rate_from[0]) / max(now - rate_from[1], 1e-9)
          logging.info("%s, loss = %.6g, learning_rate = %.6g, "
                       "examples/sec = %.1f",
                       progress.progress_message(step, max_steps,
                                                 now - start_time, rate),
                       scalars["loss"], scalars["learning_rate"],
                       scalars["examples_per_second"])
          self._summarize("", step, scalars)
          pending_loss, pending_steps = 0.0, 0
          last_log_step, log_time = step, now
          rate_from = rate_from or (step, now)
        if (step != last_saved and (
            (save_every and step % save_every == 0) or step >= max_steps or
            stop)) or (stop and self.latest_checkpoint() is None):
          self._save(step)
          last_saved = step
        if stop:
          signum = watcher.signum or 15  # Another worker was signalled.
          raise preemption.TrainingInterrupted(
              signum, step, self.latest_checkpoint())
