"""The private TF/Keras behaviour modeling.tf_internals relies on.

If a TensorFlow or Keras upgrade breaks one of these, fix tf_internals (and
only it): nothing else in the project touches private APIs.
"""

import ast
import os

import keras
import numpy as np
import tensorflow as tf

from modeling import tf_internals

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_in_xla_context_tells_jit_compiled_tracing_apart():
  seen = []

  def probe(x):
    seen.append(tf_internals.in_xla_context())
    return x + 1.0
  tf.function(probe, jit_compile=True)(tf.constant(1.0))
  tf.function(probe)(tf.constant(1.0))
  probe(tf.constant(1.0))
  assert seen == [True, False, False]


def test_flatten_layers_is_recursive_and_includes_self():

  class Block(keras.layers.Layer):

    def __init__(self, **kwargs):
      super().__init__(**kwargs)
      self.first = keras.layers.Dense(2, name="first")
      self.inner = keras.Sequential([keras.layers.Dense(2, name="deep")],
                                    name="inner")

  block = Block(name="block")
  names = [layer.name for layer in tf_internals.flatten_layers(block)]
  assert names[0] == "block"
  assert sorted(names[1:]) == ["deep", "first", "inner"]


def test_optimizer_variable_key_and_index():
  a = keras.Variable(np.zeros([2], np.float32), name="a")
  b = keras.Variable(np.zeros([3], np.float32), name="b")
  opt = keras.optimizers.SGD(0.1)
  opt.build([a, b])
  key = tf_internals.optimizer_variable_key
  # A Keras variable and the tf.Variable inside it share the key.
  assert key(opt, b) == key(opt, b.value) != key(opt, a)
  assert tf_internals.optimizer_variable_index(opt, b) == 1
  assert tf_internals.optimizer_variable_index(opt, a.value) == 0


def test_optimizer_variable_key_unwraps_mirrored_components():
  strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
  with strategy.scope():
    v = keras.Variable(np.zeros([2], np.float32), name="v")
    opt = keras.optimizers.SGD(0.1)
    opt.build([v])
  components = strategy.experimental_local_results(v.value)
  assert all(tf_internals.optimizer_variable_key(opt, c) ==
             tf_internals.optimizer_variable_key(opt, v) for c in components)


def _apply_in_replica_context(aggregated):
  """One SGD step in a (1-replica) MirroredStrategy replica context; returns
  how often Keras' own _all_reduce_sum_gradients ran."""
  calls = []

  class RecordingSgd(keras.optimizers.SGD):

    def _all_reduce_sum_gradients(self, grads_and_vars):
      calls.append(len(grads_and_vars))
      return super()._all_reduce_sum_gradients(grads_and_vars)

  class Sgd(tf_internals.PreAggregatedGradients, RecordingSgd):
    pass

  strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
  with strategy.scope():
    v = keras.Variable(np.zeros([1], np.float32), name="v")
    opt = Sgd(1.0)
    opt.gradients_aggregated = aggregated
    opt.build([v])
  strategy.run(tf.function(lambda: opt.apply([tf.ones([1])], [v])))
  assert v.numpy().tolist() == [-1.0]
  return len(calls)


def test_pre_aggregated_gradients_skip_keras_all_reduce():
  # Keras' apply() all-reduces through this hook in replica context...
  assert _apply_in_replica_context(aggregated=False) == 1
  # ...and the mixin skips it.
  assert _apply_in_replica_context(aggregated=True) == 0


def _private_uses(path):
  """Names of `tensorflow.python` imports and private attributes of other
  modules' objects (`x._name`, not `self._name`) in a Python file."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read())
  found = []
  for node in ast.walk(tree):
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
        ("tensorflow.python", "keras.src")):
      found.append(node.module)
    elif isinstance(node, ast.Import):
      found += [a.name for a in node.names
                if a.name.startswith(("tensorflow.python", "keras.src"))]
    elif isinstance(node, ast.Attribute) and node.attr in (
        "_flatten_layers", "_var_key", "_get_variable_index",
        "_all_reduce_sum_gradients", "_clip_gradients",
        "_backend_apply_gradients", "__internal__"):
      if not (isinstance(node.value, ast.Name) and node.value.id in (
          "self", "super")) and not isinstance(node.value, ast.Call):
        found.append(node.attr)
  return found


def test_no_private_api_outside_tf_internals():
  offenders = {}
  for top in ("modeling", "tokenization", "optimization", "bert_tf2"):
    for root, _, files in os.walk(os.path.join(REPO, top)):
      for name in files:
        path = os.path.join(root, name)
        if not name.endswith(".py") or path.endswith("tf_internals.py"):
          continue
        uses = _private_uses(path)
        if uses:
          offenders[os.path.relpath(path, REPO)] = uses
  assert not offenders
