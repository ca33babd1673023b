"""Imports Google's original BERT code for golden (parity) tests. Test-only.

The original lives in PyPI `bert-tensorflow==1.0.4` (package `bert`). It is
TF1 graph code: it needs `tf.disable_v2_behavior()` and `tf-keras`, and its
`modeling.py` imports `tensorflow.contrib.layers`, which no longer exists. We
provide a stand-in module whose `layer_norm` creates the same variables
(`LayerNorm/beta`, `LayerNorm/gamma`) and computes the same normalisation
(epsilon 1e-12) as contrib's did.

Because disabling v2 behaviour is process-wide, this module must only be
imported inside a golden subprocess (see `tests/golden/__init__.py`), never in
the pytest process itself.

    from tests.golden import original
    modeling = original.load("modeling")   # the original bert/modeling.py
"""

import importlib
import os
import sys
import types

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import tensorflow.compat.v1 as tf  # pylint: disable=g-import-not-at-top

tf.disable_v2_behavior()


def _contrib_layer_norm(inputs, center=True, scale=True, activation_fn=None,
                        reuse=None, variables_collections=None,
                        outputs_collections=None, trainable=True,
                        begin_norm_axis=1, begin_params_axis=-1, scope=None):
  """Equivalent of tf.contrib.layers.layer_norm as the original calls it."""
  del variables_collections, outputs_collections
  with tf.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse):
    rank = inputs.shape.ndims
    if begin_norm_axis < 0:
      begin_norm_axis += rank
    if begin_params_axis < 0:
      begin_params_axis += rank
    params_shape = inputs.shape[begin_params_axis:]
    beta = gamma = None
    if center:
      beta = tf.get_variable("beta", shape=params_shape, dtype=inputs.dtype,
                             initializer=tf.zeros_initializer(),
                             trainable=trainable)
    if scale:
      gamma = tf.get_variable("gamma", shape=params_shape, dtype=inputs.dtype,
                              initializer=tf.ones_initializer(),
                              trainable=trainable)
    norm_axes = list(range(begin_norm_axis, rank))
    mean, variance = tf.nn.moments(inputs, norm_axes, keep_dims=True)
    outputs = tf.nn.batch_normalization(inputs, mean, variance, offset=beta,
                                        scale=gamma, variance_epsilon=1e-12)
    if activation_fn is not None:
      outputs = activation_fn(outputs)
    return outputs


def _install_contrib_shim():
  if "tensorflow.contrib" in sys.modules:
    return
  contrib = types.ModuleType("tensorflow.contrib")
  layers = types.ModuleType("tensorflow.contrib.layers")
  layers.layer_norm = _contrib_layer_norm
  contrib.layers = layers
  sys.modules["tensorflow.contrib"] = contrib
  sys.modules["tensorflow.contrib.layers"] = layers


def _mark_flags_parsed():
  # The original tokenization.py reads FLAGS.preserve_unused_tokens at call
  # time; absl refuses to read unparsed flags.
  from absl import flags  # pylint: disable=g-import-not-at-top
  if not flags.FLAGS.is_parsed():
    flags.FLAGS(["golden"], known_only=True)


def load(name):
  """Returns the original module `bert.<name>` (e.g. "modeling")."""
  _install_contrib_shim()
  module = importlib.import_module("bert." + name)
  _mark_flags_parsed()
  return module
