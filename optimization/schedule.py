"""Learning-rate schedule: linear warmup, then linear decay to zero.

The decay is measured from step 0 (not from the end of warmup), and during
warmup the two rates are blended with an `is_warmup` 0/1 factor, exactly as
Google's BERT did, so the rate at every step matches the original to the bit.

Divisions by the (constant) step counts are written as multiplications by
their float32 reciprocals, and constant factors are pre-multiplied: this is
what TensorFlow's graph optimizer (grappler) makes of the original's graph
(and of ours in a tf.function), so writing it that way gives the original's
bits in eager and graph mode alike.
"""

import keras
import numpy as np
import tensorflow as tf


def _reciprocal(count):
  return tf.constant(np.float32(1.0) / np.float32(count), tf.float32)


def warmup_polynomial_decay(step, init_lr, num_train_steps, num_warmup_steps,
                            end_learning_rate=0.0, power=1.0):
  """The learning rate at `step` (a scalar integer Tensor or int).

  Args:
    step: the global step *before* the update (0 for the first update).
    init_lr: float, the peak learning rate.
    num_train_steps: int, steps over which the rate decays to
      `end_learning_rate` (measured from step 0).
    num_warmup_steps: int, steps of linear warmup from 0 to `init_lr`; 0 or
      None disables warmup.
    end_learning_rate: float, the rate at and after `num_train_steps`.
    power: float, the polynomial power (1.0 = linear).

  Returns:
    float32 scalar Tensor.

  Example:
    >>> float(warmup_polynomial_decay(5, 1e-3, 100, 10))  # half-way warmup
    0.0005000000237487257
  """
  step = tf.cast(step, tf.int64)
  init = tf.constant(init_lr, dtype=tf.float32)
  # Polynomial decay, step clipped at num_train_steps (no cycling).
  decay_steps = tf.cast(num_train_steps, tf.float32)
  clipped = tf.minimum(tf.cast(step, tf.float32), decay_steps)
  fraction = clipped * _reciprocal(num_train_steps)
  end = tf.constant(end_learning_rate, dtype=tf.float32)
  rate = tf.math.add(
      tf.math.multiply(init - end,
                       tf.math.pow(1.0 - fraction,
                                   tf.constant(power, tf.float32))),
      end)
  if num_warmup_steps:
    step_i32 = tf.cast(step, tf.int32)
    warmup_i32 = tf.constant(num_warmup_steps, dtype=tf.int32)
    # init_lr * (step * (1 / warmup)), with the two constants pre-multiplied
    # as grappler's constant folding does in graph mode.
    per_step = np.float32(init_lr) * (np.float32(1.0) /
                                      np.float32(num_warmup_steps))
    warmup_rate = tf.cast(step_i32, tf.float32) * tf.constant(per_step)
    is_warmup = tf.cast(step_i32 < warmup_i32, tf.float32)
    rate = (1.0 - is_warmup) * rate + is_warmup * warmup_rate
  return rate


@keras.saving.register_keras_serializable(package="bert")
class WarmupPolynomialDecay(keras.optimizers.schedules.LearningRateSchedule):
  """Keras schedule wrapper of `warmup_polynomial_decay`.

  `step_offset` is added to the step the optimizer passes (its update
  count); `create_optimizer` uses 1, see optimization/factory.py.

  Example:
    >>> s = WarmupPolynomialDecay(1e-4, num_train_steps=100,
    ...                           num_warmup_steps=10)
    >>> [round(float(s(t)), 8) for t in (0, 5, 10, 100)]
    [0.0, 5e-05, 9e-05, 0.0]
  """

  def __init__(self, init_lr, num_train_steps, num_warmup_steps,
               end_learning_rate=0.0, power=1.0, step_offset=0):
    super().__init__()
    if num_train_steps is None or int(num_train_steps) <= 0:
      raise ValueError("num_train_steps must be a positive integer, got %r"
                       % (num_train_steps,))
    if num_warmup_steps is not None and int(num_warmup_steps) < 0:
      raise ValueError("num_warmup_steps must be >= 0, got %r"
                       % (num_warmup_steps,))
    self.init_lr = float(init_lr)
    self.num_train_steps = int(num_train_steps)
    self.num_warmup_steps = int(num_warmup_steps or 0)
    self.end_learning_rate = float(end_learning_rate)
    self.power = float(power)
    self.step_offset = int(step_offset)

  def __call__(self, step):
    if self.step_offset:
      step = tf.cast(step, tf.int64) + self.step_offset
    return warmup_polynomial_decay(step, self.init_lr, self.num_train_steps,
                                   self.num_warmup_steps,
                                   self.end_learning_rate, self.power)

  def get_config(self):
    return {"init_lr": self.init_lr,
            "num_train_steps": self.num_train_steps,
            "num_warmup_steps": self.num_warmup_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "step_offset": self.step_offset}
