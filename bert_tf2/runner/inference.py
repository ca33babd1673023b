"""`Estimator.evaluate` and `Estimator.predict`."""

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.runner import loops


def _gather_rows(outputs, max_rows):
  """Every replica's rows of `outputs`, on every replica (replica context).

  Returns {key: [replicas, max_rows, ...] rows zero-padded per replica} plus
  "__rows__": int32 [replicas], the real row count of each replica. Built on
  all_reduce (exact: x + 0 = x), which the collectives of every strategy
  support for numbers, with batches of different sizes (a final partial or
  empty batch). Replica order is input order (see _shard_batches).
  """
  ctx = tf.distribute.get_replica_context()
  replicas = ctx.num_replicas_in_sync
  slot = tf.one_hot(ctx.replica_id_in_sync_group, replicas, dtype=tf.int32)
  n = loops.batch_size_of(outputs)
  gathered = {"__rows__": ctx.all_reduce(tf.distribute.ReduceOp.SUM,
                                         slot * n)}
  for key, value in outputs.items():
    value = tf.convert_to_tensor(value)
    dtype = value.dtype
    if dtype == tf.bool:
      value = tf.cast(value, tf.int32)
    pad = [[0, max_rows - n]] + [[0, 0]] * (value.shape.rank - 1)
    value = tf.pad(value, pad)
    placed = tf.cast(tf.reshape(slot, [replicas] + [1] * value.shape.rank),
                     value.dtype) * value[tf.newaxis]
    total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, placed)
    gathered[key] = tf.cast(total, tf.bool) if dtype == tf.bool else total
  return gathered


def _split_gathered(gathered):
  """{key: numpy rows} from `_gather_rows`' padded per-replica blocks."""
  rows = np.asarray(gathered["__rows__"])
  return [{key: np.asarray(value)[i, :rows[i]]
           for key, value in gathered.items() if key != "__rows__"}
          for i in range(len(rows))]


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
    for i, features in enumerate(self._distribute(dataset_fn)):
      if steps is not None and i >= steps:
        break
      weighted, n = self._eval_fn(features)
      if float(n) > 0:
        batch_losses.append(float(weighted) / float(n))
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
    In a multi-worker job every worker yields every example (the replicas'
    outputs are gathered across workers), not only its own shard.
    """
    strategy = self._strategy
    multi_worker = self._num_input_pipelines() > 1
    per_replica = self.predict_batch_size // strategy.num_replicas_in_sync
    dataset_fn = self._dataset_fn(input_fn, per_replica, "predict")
    self._ensure_model(self._element_spec(dataset_fn), "predict")
    self._restore_for_inference(checkpoint_path)
    if self._predict_fn is None:
      def replica_predict(features):
        outputs = self._task.predict_outputs(self._model, features)
        if multi_worker:
          outputs = _gather_rows(outputs, per_replica)
        return outputs

      def predict_step(features):
        return strategy.run(replica_predict, args=(features,))
      self._predict_fn = tf.function(predict_step)
    for features in self._distribute(dataset_fn):
      outputs = strategy.experimental_local_results(
          self._predict_fn(features))
      if multi_worker:  # Every replica holds every replica's rows.
        outputs = _split_gathered(outputs[0])
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
