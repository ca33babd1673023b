"""AdamWeightDecay: Adam without bias correction + decoupled weight decay.

The update for a variable w with gradient g, at learning rate lr:

    m' = beta_1 * m + (1 - beta_1) * g
    v' = beta_2 * v + (1 - beta_2) * g^2
    u  = m' / (sqrt(v') + epsilon)    [+ weight_decay_rate * w, unless excluded]
    w' = w - lr * u

i.e. the maths of Google's BERT `AdamWeightDecayOptimizer`: no bias
correction, and the decay is added to the update (not to the loss), so it does
not interact with m and v.
"""

import keras
import tensorflow as tf

from optimization import base


@keras.saving.register_keras_serializable(package="bert")
class AdamWeightDecay(base.BertOptimizer):
  """Keras 3 optimizer with the original BERT update rule.

  Args:
    learning_rate: float or a `keras.optimizers.schedules` schedule (see
      `optimization.WarmupPolynomialDecay`); schedules get the step before
      the update.
    weight_decay_rate: float, decoupled weight decay (0.01 in BERT).
    beta_1, beta_2, epsilon: Adam constants (0.9, 0.999, 1e-6 in BERT).
    exclude_from_weight_decay: list of regexes searched in the ORIGINAL
      variable names (see `set_variable_names`), e.g.
      ["LayerNorm", "layer_norm", "bias"].
    clip_norm: global gradient norm clip (1.0 in BERT); None disables.
    learning_rate_multipliers: {regex on original names: factor}, e.g.
      {"^crf/": 100.0}; other variables use the rate as given.

  Example:
    >>> import keras, numpy as np
    >>> w = keras.Variable(np.ones([2], np.float32), name="w")
    >>> opt = AdamWeightDecay(0.1, weight_decay_rate=0.0, clip_norm=None)
    >>> opt.apply([np.array([0.5, -0.5], np.float32)], [w])
    >>> np.round(w.numpy(), 4)  # first step: update = g/|g| * (1-b1)/sqrt(1-b2)
    array([0.6838, 1.3162], dtype=float32)
  """

  def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9,
               beta_2=0.999, epsilon=1e-6, exclude_from_weight_decay=None,
               clip_norm=1.0, learning_rate_multipliers=None,
               name="AdamWeightDecay", **kwargs):
    super().__init__(learning_rate, weight_decay_rate=weight_decay_rate,
                     beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                     exclude_from_weight_decay=exclude_from_weight_decay,
                     clip_norm=clip_norm,
                     learning_rate_multipliers=learning_rate_multipliers,
                     name=name, **kwargs)

  def update_step(self, gradient, variable, learning_rate):
    index, m, v, next_m, next_v = self._adam_moments(gradient, variable)
    update = next_m / (tf.sqrt(next_v) + self.epsilon)
    if self._decay[index]:
      update += self.weight_decay_rate * tf.cast(variable, update.dtype)
    update_with_lr = self.scaled_learning_rate(learning_rate, variable,
                                               update.dtype) * update
    self.assign(variable, tf.cast(variable, update.dtype) - update_with_lr)
    self.assign(m, next_m)
    self.assign(v, next_v)


# The original class name, for code written against Google's optimization.py.
AdamWeightDecayOptimizer = AdamWeightDecay
