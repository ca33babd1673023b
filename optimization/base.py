"""Shared machinery of the BERT optimizers (AdamWeightDecay, LAMB).

Both are Keras 3 optimizers with three BERT-specific behaviours:

* Variables are known by their ORIGINAL checkpoint names (e.g.
  "bert/encoder/layer_0/attention/output/LayerNorm/gamma"); weight decay is
  excluded by regular expressions searched in those names, and the slots are
  exported as "<name>/adam_m" and "<name>/adam_v" (see `slot_variables`).
* `apply` clips the gradients with `tf.clip_by_global_norm` (the original
  op, so the norm is computed exactly as in TF1) before the update.
* The clipping norm counts a gradient as the original's TF1 code did. An
  embedding looked up with tf.gather has an IndexedSlices gradient, and
  tf.clip_by_global_norm counts each looked-up row separately: a token that
  occurs n times adds the squares of its n row gradients, not the square of
  their sum. Pass IndexedSlices to `apply` and this happens by itself; the
  runner, which densifies gradients for all-reduce and accumulation, passes
  those terms as `apply(..., squared_norm_terms=...)` instead.
* `learning_rate_multipliers`: {regex: factor}; a variable whose original
  name matches one (the first that matches, in order) is updated at
  factor x the schedule's rate, e.g. {"^crf/": 100.0} for the NER CRF's
  transition scores (run_ner.py --crf_learning_rate_multiplier).
* `gradients_aggregated = True` tells the optimizer that the caller (the
  runner) already averaged the gradients over replicas. Keras would otherwise
  sum them again, and clip per replica before the sum; we clip the global
  average so that N replicas give the same update as one device.
"""

import re

import keras
import tensorflow as tf

from modeling import tf_internals


class BertOptimizer(tf_internals.PreAggregatedGradients,
                    keras.optimizers.Optimizer):
  """Base class: names, weight-decay exclusion, clipping, m/v slots."""

  def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9,
               beta_2=0.999, epsilon=1e-6, exclude_from_weight_decay=None,
               clip_norm=1.0, learning_rate_multipliers=None, name=None,
               **kwargs):
    if kwargs.get("gradient_accumulation_steps"):
      raise ValueError(
          "BERT optimizers clip before the update, per apply(); accumulate "
          "gradients with runner.RunConfig(gradient_accumulation_steps=K) "
          "instead of the Keras optimizer's gradient_accumulation_steps")
    super().__init__(learning_rate=learning_rate, name=name, **kwargs)
    self.weight_decay_rate = float(weight_decay_rate)
    self.beta_1 = float(beta_1)
    self.beta_2 = float(beta_2)
    self.epsilon = float(epsilon)
    self.exclude_from_weight_decay = list(exclude_from_weight_decay or [])
    self.clip_norm = None if clip_norm is None else float(clip_norm)
    self.learning_rate_multipliers = {
        str(k): float(v) for k, v in (learning_rate_multipliers or {}).items()}
    # True when the runner averages over replicas itself; see
    # tf_internals.PreAggregatedGradients.
    self.gradients_aggregated = False
    self._names_by_key = {}
    self._slot_names = []  # Original names, by variable index.

  def set_variable_names(self, names_to_variables):
    """Tells the optimizer the original name of each variable.

    Must be called before the optimizer is built (before the first update or
    `build`). Variables without a name fall back to their Keras path.

    Args:
      names_to_variables: dict {original_name: variable}, e.g. the result of
        `modeling.original_variable_names(model)`.
    """
    if self.built:
      raise RuntimeError("set_variable_names() must be called before the "
                         "optimizer is built")
    for name, variable in names_to_variables.items():
      key = tf_internals.optimizer_variable_key(self, variable)
      self._names_by_key[key] = name

  def variable_name(self, variable):
    """The original name used for weight decay and slot export."""
    key = tf_internals.optimizer_variable_key(self, variable)
    if key in self._names_by_key:
      return self._names_by_key[key]
    name = getattr(variable, "path", None) or variable.name
    m = re.match(r"^(.*):\d+$", name)
    return m.group(1) if m else name

  def _do_use_weight_decay(self, name):
    if not self.weight_decay_rate:
      return False
    for pattern in self.exclude_from_weight_decay:
      if re.search(pattern, name) is not None:
        return False
    return True

  def _learning_rate_factor(self, name):
    for pattern, factor in self.learning_rate_multipliers.items():
      if re.search(pattern, name) is not None:
        return factor
    return 1.0

  def scaled_learning_rate(self, learning_rate, variable, dtype):
    """The rate for `variable`: `learning_rate` x its multiplier."""
    rate = tf.cast(learning_rate, dtype)
    index = tf_internals.optimizer_variable_index(self, variable)
    factor = self._lr_factor[index] if self._lr_factor else 1.0
    return rate if factor == 1.0 else rate * factor

  def build(self, var_list):
    if self.built:
      return
    super().build(var_list)
    self._m = []
    self._v = []
    self._decay = []
    self._lr_factor = []
    self._slot_names = []
    for var in var_list:
      name = self.variable_name(var)
      self._slot_names.append(name)
      self._decay.append(self._do_use_weight_decay(name))
      self._lr_factor.append(self._learning_rate_factor(name))
      self._m.append(self.add_variable_from_reference(var, name="adam_m"))
      self._v.append(self.add_variable_from_reference(var, name="adam_v"))

  def slot_variables(self):
    """{"<original name>/adam_m": variable, ".../adam_v": variable}.

    Example:
      >>> import keras, optimization
      >>> w = keras.Variable([1.0, 2.0], name="w")
      >>> opt = optimization.AdamWeightDecay(1e-3)
      >>> opt.set_variable_names({"dense/bias": w})
      >>> opt.build([w])
      >>> sorted(opt.slot_variables())
      ['dense/bias/adam_m', 'dense/bias/adam_v']
    """
    if not self.built:
      raise RuntimeError("the optimizer is not built yet")
    slots = {}
    for name, m, v in zip(self._slot_names, self._m, self._v):
      slots[name + "/adam_m"] = m
      slots[name + "/adam_v"] = v
    return slots

  def apply(self, grads, trainable_variables=None, squared_norm_terms=None):
    """Clips `grads` by their global norm, then updates the variables.

    Args:
      grads: list of gradients (Tensors, IndexedSlices or None), one per
        variable.
      trainable_variables: the variables (optional once built), as in
        `keras.optimizers.Optimizer.apply`.
      squared_norm_terms: optional list, one entry per gradient: None, or a
        float32 scalar Tensor that this gradient adds to the squared global
        norm instead of its own squared norm. The runner passes the sum of
        squares of the IndexedSlices values of gathered embeddings here,
        so that their densified gradients are clipped as the original
        clipped the IndexedSlices.
    """
    grads = self.clip_gradients(grads, squared_norm_terms)
    return super().apply(grads, trainable_variables)

  def clip_gradients(self, grads, squared_norm_terms=None):
    """`grads` clipped to global norm `clip_norm` (as given if None).

    Example:
      >>> import numpy as np, optimization
      >>> opt = optimization.AdamWeightDecay(1e-3, clip_norm=1.0)
      >>> g = [tf.constant([3.0, 4.0]), None]
      >>> [x if x is None else x.numpy().tolist()
      ...  for x in opt.clip_gradients(g)]
      [[0.6000000238418579, 0.800000011920929], None]
      >>> # A term of 100 for the first gradient: global norm 10, not 5.
      >>> np.round(opt.clip_gradients(g, [tf.constant(100.0), None])[0], 2)
      array([0.3, 0.4], dtype=float32)
    """
    grads = list(grads)
    if not self.clip_norm:
      return grads
    if squared_norm_terms is not None and len(squared_norm_terms) != len(
        grads):
      raise ValueError("squared_norm_terms has %d entries for %d gradients"
                       % (len(squared_norm_terms), len(grads)))
    present = [g for g in grads if g is not None]
    norm = None
    if squared_norm_terms is not None and any(
        t is not None for t in squared_norm_terms):
      # tf.linalg.global_norm's arithmetic, with the given terms swapped in.
      halves = [tf.nn.l2_loss(g) if t is None else tf.cast(t, g.dtype) / 2.0
                for g, t in zip(grads, squared_norm_terms) if g is not None]
      norm = tf.sqrt(tf.reduce_sum(tf.stack(halves)) * 2.0)
    clipped, _ = tf.clip_by_global_norm(present, clip_norm=self.clip_norm,
                                        use_norm=norm)
    clipped = iter(clipped)
    return [None if g is None else next(clipped) for g in grads]

  def _adam_moments(self, gradient, variable):
    """Returns (index, m, v, next_m, next_v) for `variable`."""
    index = tf_internals.optimizer_variable_index(self, variable)
    m, v = self._m[index], self._v[index]
    # An IndexedSlices gradient (clipped as such) updates densely, as the
    # original's tf.multiply / tf.square on it did.
    gradient = tf.cast(tf.convert_to_tensor(gradient), m.dtype)
    next_m = (tf.multiply(self.beta_1, m) +
              tf.multiply(1.0 - self.beta_1, gradient))
    next_v = (tf.multiply(self.beta_2, v) +
              tf.multiply(1.0 - self.beta_2, tf.square(gradient)))
    return index, m, v, next_m, next_v

  def get_config(self):
    config = super().get_config()
    config.update({
        "weight_decay_rate": self.weight_decay_rate,
        "beta_1": self.beta_1,
        "beta_2": self.beta_2,
        "epsilon": self.epsilon,
        "exclude_from_weight_decay": self.exclude_from_weight_decay,
        "clip_norm": self.clip_norm,
        "learning_rate_multipliers": dict(self.learning_rate_multipliers),
    })
    return config
