"""LAMB: layer-wise adaptive moments, for large-batch BERT pretraining.

You et al. 2019, "Large Batch Optimization for Deep Learning: Training BERT
in 76 minutes". The moments are those of `AdamWeightDecay` (no bias
correction); the step of each variable is then rescaled by the trust ratio
||w|| / ||u|| (1 where either norm is 0), except for variables matching
`exclude_from_layer_adaptation`.
"""

import re

import keras
import tensorflow as tf

from optimization import base


@keras.saving.register_keras_serializable(package="bert")
class Lamb(base.BertOptimizer):
  """LAMB with decoupled weight decay and per-variable trust ratio.

  Args are those of `AdamWeightDecay` plus
    exclude_from_layer_adaptation: regexes (original names) of variables
      whose step is not rescaled; defaults to `exclude_from_weight_decay`.

  Example:
    >>> import keras, numpy as np
    >>> w = keras.Variable(np.full([4], 2.0, np.float32), name="w")
    >>> opt = Lamb(0.1, clip_norm=None)
    >>> opt.apply([np.ones([4], np.float32)], [w])
    >>> np.round(w.numpy(), 3)  # step length = lr * ||w||
    array([1.8, 1.8, 1.8, 1.8], dtype=float32)
  """

  def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9,
               beta_2=0.999, epsilon=1e-6, exclude_from_weight_decay=None,
               exclude_from_layer_adaptation=None, clip_norm=1.0,
               name="Lamb", **kwargs):
    super().__init__(learning_rate, weight_decay_rate=weight_decay_rate,
                     beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                     exclude_from_weight_decay=exclude_from_weight_decay,
                     clip_norm=clip_norm, name=name, **kwargs)
    if exclude_from_layer_adaptation is None:
      exclude_from_layer_adaptation = self.exclude_from_weight_decay
    self.exclude_from_layer_adaptation = list(exclude_from_layer_adaptation)

  def build(self, var_list):
    if self.built:
      return
    super().build(var_list)
    self._adapt = [
        not any(re.search(p, name) for p in self.exclude_from_layer_adaptation)
        for name in self._slot_names]

  def update_step(self, gradient, variable, learning_rate):
    index, m, v, next_m, next_v = self._adam_moments(gradient, variable)
    value = tf.cast(variable, next_m.dtype)
    update = next_m / (tf.sqrt(next_v) + self.epsilon)
    if self._decay[index]:
      update += self.weight_decay_rate * value
    ratio = 1.0
    if self._adapt[index]:
      w_norm = tf.norm(value, ord=2)
      u_norm = tf.norm(update, ord=2)
      ratio = tf.where(w_norm > 0.0,
                       tf.where(u_norm > 0.0, w_norm / u_norm, 1.0), 1.0)
    step = ratio * self.scaled_learning_rate(learning_rate, variable,
                                             update.dtype) * update
    self.assign(variable, value - step)
    self.assign(m, next_m)
    self.assign(v, next_v)

  def get_config(self):
    config = super().get_config()
    config["exclude_from_layer_adaptation"] = (
        self.exclude_from_layer_adaptation)
    return config
