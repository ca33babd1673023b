"""Gradient accumulation: average gradients over several micro-batches.

Used by the runner for `--gradient_accumulation_steps=K`: each optimizer
step sums the gradients of K micro-batches into replica-local accumulators
(`ON_READ` variables, so no communication per micro-batch), then averages
them, all-reduces once and applies one update. With the per-micro-batch loss
a mean over equal-sized micro-batches, the result equals one step on the
K-times larger batch (up to float32 round-off).

It also sums each micro-batch's squared-norm terms for gradient clipping
(`BertOptimizer.apply`'s squared_norm_terms), one float per variable: the
mean gradient concatenates the micro-batches' IndexedSlices scaled by 1/K,
so its terms are the sum over micro-batches divided by K^2.
"""

import tensorflow as tf


class GradientAccumulator(object):
  """Replica-local gradient sums for a fixed list of variables.

  Create it inside `strategy.scope()`; call `add`, `mean` and `reset` in
  replica context (inside `strategy.run`).

  Example:
    >>> import tensorflow as tf
    >>> w = tf.Variable([1.0, 1.0])
    >>> acc = GradientAccumulator([w])
    >>> acc.add([tf.constant([1.0, 2.0])]); acc.add([tf.constant([3.0, 4.0])])
    >>> [g.numpy().tolist() for g in acc.mean(2)]
    [[2.0, 3.0]]
  """

  def __init__(self, variables):
    self._accumulators = []
    for var in variables:
      self._accumulators.append(tf.Variable(
          tf.zeros(var.shape, dtype=tf.float32), trainable=False,
          name="gradient_accumulator",
          synchronization=tf.VariableSynchronization.ON_READ,
          aggregation=tf.VariableAggregation.SUM))
    self._norm_terms = tf.Variable(
        tf.zeros([len(self._accumulators)], tf.float32), trainable=False,
        name="gradient_norm_terms",
        synchronization=tf.VariableSynchronization.ON_READ,
        aggregation=tf.VariableAggregation.SUM)
    self._present = None

  def add(self, grads, norm_terms=None):
    """Adds one micro-batch's gradients (None entries allowed).

    Args:
      grads: list of gradients, one per variable.
      norm_terms: optional float32 [num_variables] squared-norm terms.
    """
    present = [g is not None for g in grads]
    if self._present is None:
      self._present = present
    elif self._present != present:
      raise ValueError("the set of variables with gradients changed between "
                       "micro-batches")
    for acc, grad in zip(self._accumulators, grads):
      if grad is not None:
        acc.assign_add(tf.cast(tf.convert_to_tensor(grad), acc.dtype))
    if norm_terms is not None:
      self._norm_terms.assign_add(tf.cast(norm_terms, tf.float32))

  def mean_norm_terms(self, steps):
    """The squared-norm terms of the mean gradient: sum / steps^2."""
    return self._norm_terms.read_value() / float(steps * steps)

  def mean(self, steps):
    """The accumulated gradients divided by `steps` (None where absent)."""
    if self._present is None:
      raise ValueError("no gradients were accumulated")
    return [acc.read_value() / float(steps) if present else None
            for acc, present in zip(self._accumulators, self._present)]

  def reset(self):
    for acc in self._accumulators:
      acc.assign(tf.zeros_like(acc))
    self._norm_terms.assign(tf.zeros_like(self._norm_terms))
