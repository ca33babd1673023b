"""Every private TensorFlow / Keras API the project relies on, in one place.

Each entry is used only because no public API does the job (the reason is
given beside it). tests/modeling/tf_internals_test.py imports every symbol and
checks the behaviour relied upon, so a TensorFlow or Keras upgrade that
changes one of them fails there, loudly, instead of silently elsewhere.
It lives in modeling/ (the lowest package that imports TensorFlow) so that
modeling/ and optimization/ use it without importing bert_tf2.

  in_xla_context()                   is the graph being traced XLA-compiled?
  flatten_layers(layer)              a layer and all its nested sublayers
  optimizer_variable_key(opt, var)   the key Keras optimizers index vars by
  optimizer_variable_index(opt, var) a variable's position in opt.build()
  PreAggregatedGradients             optimizer mixin: skip Keras' all-reduce

Example:
  >>> import keras
  >>> inner = keras.layers.Dense(2, name="inner")
  >>> outer = keras.Sequential([inner], name="outer")
  >>> [layer.name for layer in flatten_layers(outer)]
  ['outer', 'inner']
  >>> in_xla_context()
  False
"""

import keras
# tf.distribute itself uses this test to know whether XLA compiles the
# function being traced; no public API exposes it.
from tensorflow.python.framework import ops as _tf_ops
from tensorflow.python.ops import control_flow_util as _control_flow_util


def in_xla_context():
  """True while tracing a function that XLA will compile (jit_compile=True)."""
  return _control_flow_util.GraphOrParentsInXlaContext(
      _tf_ops.get_default_graph())


def flatten_layers(layer):
  """Yields `layer` and every layer nested in it, at any depth, once each.

  Keras 3 has no public recursive listing: `Model.layers` is one level deep
  and a plain Layer's sublayers are not exposed at all.
  """
  yield from layer._flatten_layers(include_self=True, recursive=True)  # pylint: disable=protected-access


def optimizer_variable_key(optimizer, variable):
  """The key a Keras optimizer identifies `variable` by.

  The same for a Keras variable, the tf.Variable inside it and (under a
  tf.distribute strategy) each replica's component, which is what
  `update_step` receives. Keras' own optimizers use it; there is no public
  equivalent.
  """
  return optimizer._var_key(variable)  # pylint: disable=protected-access


def optimizer_variable_index(optimizer, variable):
  """Position of `variable` in the list `optimizer.build()` was given.

  The lookup Keras documents for custom optimizers' `update_step` (the
  `SGD` example of `keras.optimizers.Optimizer`).
  """
  return optimizer._get_variable_index(variable)  # pylint: disable=protected-access


class PreAggregatedGradients(object):
  """Optimizer mixin: with `gradients_aggregated`, gradients are used as given.

  In a tf.distribute replica context, Keras' TF optimizer sums the replicas'
  gradients inside `apply` (in `_all_reduce_sum_gradients`; `apply` takes no
  argument to turn that off). A caller that already averaged them over the
  replicas (the runner, to clip the global average as one device would) sets
  `gradients_aggregated = True` and the sum is skipped.
  """

  gradients_aggregated = False

  def _all_reduce_sum_gradients(self, grads_and_vars):
    if self.gradients_aggregated:
      return list(grads_and_vars)
    return super()._all_reduce_sum_gradients(grads_and_vars)  # pylint: disable=protected-access


def _check_keras_hook_exists():
  """Fails at import if Keras no longer has the hook PreAggregatedGradients
  overrides (an override of a removed method would silently do nothing)."""
  if not hasattr(keras.optimizers.Optimizer, "_all_reduce_sum_gradients"):
    raise ImportError(
        "keras %s: keras.optimizers.Optimizer has no _all_reduce_sum_gradients;"
        " modeling.tf_internals.PreAggregatedGradients needs updating"
        % keras.__version__)


_check_keras_hook_exists()
