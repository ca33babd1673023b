"""Mixed precision: Keras dtype policies and float16 loss scaling."""

import contextlib

import keras
import tensorflow as tf

_POLICIES = {"float32": "float32", "bfloat16": "mixed_bfloat16",
             "float16": "mixed_float16"}


@contextlib.contextmanager
def policy_scope(precision):
  """Builds layers under the Keras policy for --precision, then restores.

  Variables stay float32; float16/bfloat16 is used for the computation.
  """
  previous = keras.config.dtype_policy()
  keras.config.set_dtype_policy(_POLICIES[precision])
  try:
    yield
  finally:
    keras.config.set_dtype_policy(previous)


def wrap_optimizer(optimizer, precision):
  """Wraps in keras LossScaleOptimizer (dynamic scaling) for float16."""
  if precision == "float16" and not is_loss_scaled(optimizer):
    return keras.optimizers.LossScaleOptimizer(optimizer)
  return optimizer


def is_loss_scaled(optimizer):
  """Whether `optimizer` is a keras LossScaleOptimizer."""
  return isinstance(optimizer, keras.optimizers.LossScaleOptimizer)


def inner_optimizer(optimizer):
  """The optimizer a LossScaleOptimizer wraps (else `optimizer` itself)."""
  return optimizer.inner_optimizer if is_loss_scaled(optimizer) else optimizer


def loss_scale_variables(optimizer):
  """Loss-scale state to checkpoint, {name: variable} ({} unless float16)."""
  if not is_loss_scaled(optimizer):
    return {}
  return {"loss_scale/current_loss_scale": optimizer.dynamic_scale,
          "loss_scale/good_steps": optimizer.step_counter}


def apply_loss_scaled(optimizer, grads, variables, squared_norm_terms):
  """A LossScaleOptimizer's `apply`, passing clipping terms to the inner one.

  keras.optimizers.LossScaleOptimizer.apply's update, written with its
  public state so that the inner BERT optimizer also receives
  `squared_norm_terms`, unscaled. Call in replica context, with gradients
  already all-reduced.

  Args:
    optimizer: a keras LossScaleOptimizer around a `BertOptimizer`.
    grads: list of scaled gradients (None allowed), one per variable.
    variables: the trainable variables.
    squared_norm_terms: list of None or float32 scalar, one per gradient,
      computed from the scaled gradients.
  """
  inner = optimizer.inner_optimizer
  scale = optimizer.dynamic_scale
  # Only Tensors cross merge_call; the Nones are put back from these.
  grad_at = [i for i, g in enumerate(grads) if g is not None]
  term_at = [i for i, t in enumerate(squared_norm_terms) if t is not None]

  def finite_update(present_grads, present_terms):
    unscaled = [None] * len(grads)
    for i, g in zip(grad_at, present_grads):
      unscaled[i] = keras.ops.divide(g, scale)
    scale_sq = tf.square(tf.cast(scale, tf.float32))
    terms = [None] * len(grads)
    for i, t in zip(term_at, present_terms):
      terms[i] = t / scale_sq
    inner.apply(unscaled, variables, squared_norm_terms=terms)

    def grow():
      optimizer.step_counter.assign(0)
      scale.assign(keras.ops.multiply(scale, 2.0))

    def count():
      optimizer.step_counter.assign_add(1)

    keras.ops.cond(
        keras.ops.equal(optimizer.step_counter,
                        optimizer.dynamic_growth_steps - 1), grow, count)

  def non_finite_update():
    optimizer.step_counter.assign(0)
    scale.assign(keras.ops.multiply(scale, 0.5))

  def cross_replica(strategy, finite, present_grads, present_terms):
    # The gradients are all-reduced, so every replica has the same `finite`.
    finite = strategy.experimental_local_results(finite)[0]
    # tf.distribute allows merge_call inside a tf.cond only in cross-replica
    # context (inner.apply merge_calls), hence this detour.
    keras.ops.cond(
        finite,
        lambda: strategy.extended.call_for_each_replica(
            finite_update, args=(present_grads, present_terms)),
        non_finite_update)

  finite = optimizer.check_finite(grads)
  tf.distribute.get_replica_context().merge_call(
      cross_replica, args=(finite, [grads[i] for i in grad_at],
                           [squared_norm_terms[i] for i in term_at]))
