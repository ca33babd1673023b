"""Mixed precision: Keras dtype policies and float16 loss scaling."""

import contextlib

import keras

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
  if precision == "float16" and not isinstance(
      optimizer, keras.optimizers.LossScaleOptimizer):
    return keras.optimizers.LossScaleOptimizer(optimizer)
  return optimizer


def inner_optimizer(optimizer):
  return getattr(optimizer, "inner_optimizer", optimizer)


def loss_scale_variables(optimizer):
  """Loss-scale state to checkpoint, {name: variable} ({} unless float16)."""
  if not isinstance(optimizer, keras.optimizers.LossScaleOptimizer):
    return {}
  return {"loss_scale/current_loss_scale": optimizer.dynamic_scale,
          "loss_scale/good_steps": optimizer.step_counter}
