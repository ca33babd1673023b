"""The compiled per-replica steps and the multi-step training loop.

Training step (one optimizer update), per replica:
  loss = task.compute_loss(features, training=True)   # mean over replica batch
  grads = d(loss * loss_scale)/d(vars)                 # float16: scaled
  grads = all_reduce_mean(grads)                       # = grads of global mean
  optimizer.apply(grads)       # (unscale, skip if non-finite,) clip, update
Gradients are densified for the all-reduce; for an IndexedSlices gradient
the step also passes the optimizer the sum of squares of its values, which
is what the original's tf.clip_by_global_norm counted. With gradient
accumulation K micro-batches' gradients are summed locally, reduced once.
The loop runs up to `num_steps` steps in one tf.function call and stops
early on a non-finite loss or a stop request.
"""

import tensorflow as tf

from bert_tf2.runner import cpu_probe
from bert_tf2.runner import precision
from modeling import ops

# Ops left to their oneDNN kernels when the rest of the step is clustered:
# XLA's CPU dots run bfloat16 at half oneDNN's rate, and a BiasAdd kept
# beside its MatMul stays in oneDNN's fused MatMul + BiasAdd kernel.
_KERNEL_OPS = frozenset(["MatMul", "BatchMatMul", "BatchMatMulV2",
                         "BatchMatMulV3", "Einsum", "BiasAdd", "BiasAddGrad"])


def clusterable(node_def):
  """Whether the op of `node_def` may join an XLA cluster of the step."""
  return node_def.op not in _KERNEL_OPS


class TrainSteps(object):
  """Builds the training loop tf.function for an Estimator's model/optimizer.

  Args:
    task, model, optimizer, strategy: as in `Estimator`.
    aggregated: the optimizer expects replica-averaged gradients (BERT
      optimizers); otherwise Keras sums them, so the loss is divided by the
      number of replicas.
    accumulation_steps: micro-batches per update.
    jit_compile: compile with XLA.
    multi_worker: agree on the stop flag across workers every step.
    compile_update: run clipping and the optimizer update as one XLA
      cluster; None: below float32 outside XLA on one replica.
    cluster_elementwise: let XLA fuse the step's ops other than the matmuls
      and bias adds (`clusterable`); None: in a bfloat16 model on CPU,
      outside XLA, on one replica.
  """

  def __init__(self, task, model, optimizer, strategy, aggregated,
               accumulation_steps=1, jit_compile=False, multi_worker=False,
               accumulator=None, compile_update=None,
               cluster_elementwise=None):
    self._task = task
    self._model = model
    self._optimizer = optimizer
    self._strategy = strategy
    self._aggregated = aggregated
    self._k = int(accumulation_steps)
    self._multi_worker = multi_worker
    self._accumulator = accumulator
    self._sparse = []
    self.scalar_names = tuple(task.training_scalars())
    self._scaled = precision.is_loss_scaled(optimizer)
    replicas = strategy.num_replicas_in_sync
    self._replicas = replicas
    grads_fn = self._loss_and_grads
    step_fn = self._replica_step
    if jit_compile:
      if replicas == 1 and self._k == 1:
        step_fn = tf.function(step_fn, jit_compile=True, autograph=False)
      else:
        grads_fn = tf.function(grads_fn, jit_compile=True, autograph=False)
    self._grads_fn = grads_fn
    self._step_fn = step_fn
    compute_dtype = tf.as_dtype(getattr(model, "compute_dtype", None) or
                                tf.float32)
    if compile_update is None:
      # Saves a sixth of a bfloat16 step (docs/performance.md). One replica
      # only: the update under a strategy is a merge_call XLA cannot compile.
      compile_update = (not jit_compile and replicas == 1 and
                        ops.below_float32(compute_dtype))
    self.compiles_update = bool(compile_update)
    if cluster_elementwise is None:
      # Measured faster for bfloat16 on CPU only (docs/performance.md).
      cluster_elementwise = (not jit_compile and replicas == 1 and
                             compute_dtype == tf.bfloat16 and
                             cpu_probe.on_cpu_only())
    self.clusters_elementwise = bool(cluster_elementwise)
    self._apply_fn = self._apply
    if self.compiles_update:
      self._apply_fn = tf.function(self._apply, jit_compile=True,
                                   autograph=False)
    self.loop = tf.function(self._loop, autograph=False)

  # ---- per replica ----
  def _loss_and_grads(self, features):
    if self.clusters_elementwise:
      with tf.xla.experimental.jit_scope(compile_ops=clusterable):
        return self._loss_and_grads_ops(features)
    return self._loss_and_grads_ops(features)

  def _loss_and_grads_ops(self, features):
    variables = self._model.trainable_variables
    with tf.GradientTape() as tape:
      loss, outputs = self._task.compute_loss(self._model, features,
                                              training=True)
      loss = tf.cast(loss, tf.float32)
      scalars = tf.zeros([0])
      if self.scalar_names:
        scalars = tf.stack([tf.cast(tf.stop_gradient(outputs[name]),
                                    tf.float32)
                            for name in self.scalar_names])
      objective = loss
      if self._scaled:
        objective = self._optimizer.scale_loss(objective)
      if not self._aggregated and self._replicas > 1:
        objective = objective / float(self._replicas)
    grads = tape.gradient(objective, variables)
    # Trace-time facts: which variables get IndexedSlices gradients.
    self._sparse = [i for i, g in enumerate(grads)
                    if isinstance(g, tf.IndexedSlices)]
    terms = tf.zeros([len(grads)], tf.float32)
    if self._sparse:
      terms = tf.scatter_nd(
          [[i] for i in self._sparse],
          [2.0 * tf.nn.l2_loss(tf.cast(grads[i].values, tf.float32))
           for i in self._sparse], [len(grads)])
    grads = [None if g is None else tf.convert_to_tensor(g) for g in grads]
    return loss, grads, terms, scalars

  def _all_reduce(self, grads, terms):
    """Replica mean of the gradients; squared-norm terms of that mean."""
    if not self._aggregated:
      return grads, terms
    present = [i for i, g in enumerate(grads) if g is not None]
    ctx = tf.distribute.get_replica_context()
    reduced = ctx.all_reduce(tf.distribute.ReduceOp.MEAN,
                             [grads[i] for i in present])
    out = list(grads)
    for i, g in zip(present, reduced):
      out[i] = g
    if self._sparse and self._replicas > 1:
      # The mean concatenates the replicas' slices scaled by 1/replicas.
      terms = ctx.all_reduce(tf.distribute.ReduceOp.SUM, terms) / float(
          self._replicas * self._replicas)
    return out, terms

  def _apply(self, grads, terms):
    variables = self._model.trainable_variables
    if not self._aggregated:  # A Keras optimizer: it sums over replicas.
      self._optimizer.apply(grads, variables)
      return
    # Squared-norm terms for clipping, for the IndexedSlices gradients only.
    norm_terms = [None] * len(grads)
    for i in self._sparse:
      norm_terms[i] = terms[i]
    if self._scaled:
      precision.apply_loss_scaled(self._optimizer, grads, variables,
                                  norm_terms)
    else:
      self._optimizer.apply(grads, variables, squared_norm_terms=norm_terms)

  def _replica_step(self, features):
    loss, grads, terms, scalars = self._grads_fn(features)
    self._apply_fn(*self._all_reduce(grads, terms))
    return loss, scalars

  def _replica_accumulate(self, features):
    loss, grads, terms, scalars = self._grads_fn(features)
    self._accumulator.add(grads, terms)
    return loss, scalars

  def _replica_apply_accumulated(self):
    self._apply_fn(*self._all_reduce(self._accumulator.mean(self._k),
                                  self._accumulator.mean_norm_terms(self._k)))
    self._accumulator.reset()

  # ---- cross replica ----
  def _mean(self, per_replica):
    return self._strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica,
                                 axis=None)

  def _mean_scalars(self, per_replica):
    if not self.scalar_names:  # Nothing to all-reduce.
      return tf.zeros([0])
    return self._mean(per_replica)

  def _one_update(self, iterator):
    """(mean loss, mean training scalars) of one optimizer update."""
    if self._k == 1:
      loss, scalars = self._strategy.run(self._step_fn,
                                         args=(next(iterator),))
      return self._mean(loss), self._mean_scalars(scalars)

    def micro_body(j, total, scalar_total):
      loss, scalars = self._strategy.run(self._replica_accumulate,
                                         args=(next(iterator),))
      return (j + 1, total + self._mean(loss),
              scalar_total + self._mean_scalars(scalars))
    _, total, scalar_total = tf.while_loop(
        lambda j, *_: j < self._k, micro_body,
        [tf.constant(0), tf.constant(0.0),
         tf.zeros([len(self.scalar_names)])])
    self._strategy.run(self._replica_apply_accumulated)
    return total / float(self._k), scalar_total / float(self._k)

  def _stop_requested(self, stop_flag):
    local = stop_flag.read_value()
    if not self._multi_worker:
      return local
    votes = self._strategy.run(lambda: tf.cast(local, tf.float32))
    return self._strategy.reduce(tf.distribute.ReduceOp.SUM, votes,
                                 axis=None) > 0.0

  def _loop(self, iterator, num_steps, stop_flag):
    """Runs up to num_steps updates.

    Returns:
      (steps, loss_sum, ok, stop, scalar_sums): scalar_sums is a float32
      vector, the sums of `scalar_names` over the steps run.
    """
    def cond(i, loss_sum, ok, stop, scalar_sums):
      del loss_sum, scalar_sums
      return (i < num_steps) & ok & tf.logical_not(stop)

    def body(i, loss_sum, ok, stop, scalar_sums):
      del ok, stop
      loss, scalars = self._one_update(iterator)
      return (i + 1, loss_sum + loss, tf.math.is_finite(loss),
              self._stop_requested(stop_flag), scalar_sums + scalars)

    return tf.while_loop(
        cond, body,
        [tf.constant(0), tf.constant(0.0), tf.constant(True),
         self._stop_requested(stop_flag),
         tf.zeros([len(self.scalar_names)])])
