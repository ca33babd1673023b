"""`Estimator.evaluate` and `Estimator.predict`."""

import time

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.runner import loops
from bert_tf2.runner import progress

# A long evaluation logs how far it got this often (batches, elapsed).
EVAL_LOG_EVERY_SECS = 5.0


class InferenceMixin(object):
  """evaluate() and predict() for `runner.Estimator`."""

  def _eval_replica(self, features):
    loss, outputs = self._task.compute_loss(self._model, features,
                                            training=False)
    self._task.update_metrics(self._metrics, features, outputs)
    n = tf.cast(loops.batch_size_of(features), tf.float32)
    weighted = tf.where(n > 0.0, tf.cast(loss, tf.float32) * n, 0.0)
    return weighted, n

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
    per_replica = self.eval_batch_size // self._strategy.num_replicas_in_sync
    dataset_fn = self._dataset_fn(input_fn, per_replica, "eval")
    self._ensure_model(self._element_spec(dataset_fn), "eval")
    step = self._restore_for_inference(checkpoint_path)
    if self._metrics is None:
      with self._strategy.scope():
        self._metrics = dict(self._task.create_metrics())
      strategy = self._strategy

      def eval_step(features):
        weighted, n = strategy.run(self._eval_replica, args=(features,))
        return (strategy.reduce(tf.distribute.ReduceOp.SUM, weighted, None),
                strategy.reduce(tf.distribute.ReduceOp.SUM, n, None))
      self._eval_fn = tf.function(eval_step)
    for metric in self._metrics.values():
      metric.reset_state()
    batch_losses = []
    started = last_log = time.time()
    for i, features in enumerate(self._distribute(dataset_fn)):
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
    self._summarize("eval" + ("_" + name if name else ""), step,
                    {k: float(v) for k, v in results.items()
                     if k != "global_step"})
    return results

  # ---------------------------------------------------------------- predict
  def predict(self, input_fn, checkpoint_path=None):
    """Yields one dict of numpy values per example, in input order.

    Every example is returned, including those of a final partial batch.
    """
    strategy = self._strategy
    per_replica = self.predict_batch_size // strategy.num_replicas_in_sync
    dataset_fn = self._dataset_fn(input_fn, per_replica, "predict")
    self._ensure_model(self._element_spec(dataset_fn), "predict")
    self._restore_for_inference(checkpoint_path)
    if self._predict_fn is None:
      def predict_step(features):
        return strategy.run(
            lambda f: self._task.predict_outputs(self._model, f),
            args=(features,))
      self._predict_fn = tf.function(predict_step)
    for features in self._distribute(dataset_fn):
      outputs = strategy.experimental_local_results(
          self._predict_fn(features))
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
