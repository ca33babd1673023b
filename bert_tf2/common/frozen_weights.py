"""Below float32, a text model's `predict` runs its dense kernels as constants.

oneDNN packs a weight that is a graph constant once for the CPU's matrix
units; one read from a variable is cast and runs unpacked on every call
(docs/results/performance_xeon_amx.md). In float32 the step is the model's
own, traced once.

`FrozenStep(model, step, spec)` is `step` (the model's predict step) traced
for the batches of `spec` with each dense kernel and bias a constant
(`modeling.layers.ConstantKernels`). `matches` compares the variables it
took with their values then, so after a `fit` or `assign` the text model
traces the step again. TensorFlow copies a buffer before writing it while
another tensor holds it, so `matches` first checks that every variable
still reads its copy's buffer, and compares values only when one moved (on
a GPU, always).

Example:
  >>> from modeling import layers
  >>> dense = layers.Dense(2, input_width=3, dtype="mixed_bfloat16")
  >>> _ = dense.kernel.assign(tf.ones([3, 2]))
  >>> spec = tf.TensorSpec([None, 3], tf.float32)
  >>> frozen = FrozenStep(dense, lambda x: dense(x), spec)
  >>> frozen(tf.ones([1, 3])).numpy().tolist()
  [[3.0, 3.0]]
  >>> frozen.matches(dense, spec)
  True
  >>> _ = dense.kernel.assign(tf.zeros([3, 2]))
  >>> frozen.matches(dense, spec)
  False
"""

import numpy as np
import tensorflow as tf

from modeling import layers


class FrozenStep(object):
  """`step` for the batches of `spec`, its kernels constants (see module)."""

  def __init__(self, model, step, spec, tracks_weights=True):
    """tracks_weights=False: no copy of the weights taken, for a step used
    once (`matches` then always says False)."""
    self.spec = spec
    with layers.ConstantKernels() as taken:
      self._step = tf.function(step, autograph=False).get_concrete_function(
          spec)
    # The TensorFlow variables taken and their values, read here, outside
    # any layer's autocast: the comparison needs no cast.
    self._variables = taken.variables
    self._weights = list(model.weights) if tracks_weights else None
    if not tracks_weights:
      return
    variables = [v.value for v in self._variables]
    self._all_equal = tf.function(
        lambda values: _all_equal(variables, values), autograph=False)
    self._read_all = tf.function(
        lambda: [v.read_value() for v in variables], autograph=False)
    self._rebase()

  def _rebase(self):
    """Takes the copies `matches` compares with: the variables' values as
    tensors sharing their buffers, and those buffers as arrays (held, so
    no other array can take their addresses)."""
    self._values = self._read_all()
    # Host memory only: an array of a GPU's tensor would be a copy.
    on_host = all(tf.DeviceSpec.from_string(v.device).device_type == "CPU"
                  for v in self._values)
    self._buffers = ([np.asarray(value) for value in self._values]
                     if on_host else None)

  def _same_buffers(self):
    """Whether every variable reads its copy's own buffer (see module)."""
    if self._buffers is None:
      return False
    return all(_address(np.asarray(now)) == _address(held)
               for now, held in zip(self._read_all(), self._buffers))

  def matches(self, model, spec):
    """Whether this step answers for `model` now: the same batch structure
    and weights, each kernel equal to the value it was traced with."""
    weights = model.weights
    if (self._weights is None or spec != self.spec or
        len(weights) != len(self._weights) or
        any(a is not b for a, b in zip(weights, self._weights))):
      return False
    if self._same_buffers():
      return True
    if not bool(self._all_equal(self._values)):
      return False
    # Equal values in new buffers (e.g. the same checkpoint restored):
    # hold the new ones, so the next call takes the quick check again.
    self._rebase()
    return True

  def __call__(self, data):
    """The step's outputs for one batch (`spec`'s structure)."""
    return self._step(data)


def _address(array):
  """The address of a NumPy array's first element."""
  return array.__array_interface__["data"][0]


def _all_equal(variables, values):
  """True where every variable equals its value, element by element."""
  same = [tf.reduce_all(tf.equal(v, value))
          for v, value in zip(variables, values)]
  return tf.reduce_all(tf.stack(same)) if same else tf.constant(True)
