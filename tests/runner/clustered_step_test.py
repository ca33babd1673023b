"""Below float32 the runner's step lets XLA fuse the ops between the oneDNN
matmuls (`loops.TrainSteps(cluster_elementwise=...)`, issue 48): the hints
land where they should, float32 keeps the original's kernels, and the
clustered step's gradients are the unclustered step's to well within what
bfloat16 itself changes."""

import numpy as np
import tensorflow as tf

from tests.runner import compiled_update_test as cu

MATMULS = {"MatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum"}


def _traced(steps, features):
  """The loss-and-gradients function of `steps`, traced (its own graph;
  nested functions such as the compiled GELU are compiled already)."""
  return tf.function(steps._loss_and_grads).get_concrete_function(  # pylint: disable=protected-access
      features).graph.get_operations()


def _hint(op):
  attr = op.node_def.attr
  return attr["_XlaCompile"].b if "_XlaCompile" in attr else None


def _gradients(policy, initial, clustered):
  tf.keras.utils.set_random_seed(1)
  steps, _, features = cu._steps(policy, initial,  # pylint: disable=protected-access
                                 cluster_elementwise=clustered)
  assert steps.clusters_elementwise == clustered
  _, grads, _, _ = tf.function(steps._loss_and_grads)(features)  # pylint: disable=protected-access
  return np.concatenate([tf.reshape(tf.cast(g, tf.float32), [-1]).numpy()
                         for g in grads])


def test_clustering_is_the_default_below_float32_outside_xla_only():
  assert cu._steps("bfloat16")[0].clusters_elementwise  # pylint: disable=protected-access
  assert not cu._steps("float32")[0].clusters_elementwise  # pylint: disable=protected-access
  assert not cu._steps("bfloat16", jit_compile=True)[0].clusters_elementwise  # pylint: disable=protected-access


def test_matmuls_stay_out_of_the_clusters_and_the_rest_may_join():
  steps, _, features = cu._steps("bfloat16")  # pylint: disable=protected-access
  by_type = {}
  for op in _traced(steps, features):
    by_type.setdefault(op.type, []).append(_hint(op))
  matmuls = [h for t in MATMULS for h in by_type.get(t, [])]
  assert matmuls and all(h is False for h in matmuls)
  assert by_type["BiasAdd"] and all(h is False for h in by_type["BiasAdd"])
  # LayerNorm's and softmax's arithmetic, the casts, the gradient sums.
  for kind in ("Mul", "Cast", "Softmax", "AddN"):
    assert by_type[kind] and all(by_type[kind]), kind
  # Float32: no op carries the hint.
  steps, _, features = cu._steps("float32")  # pylint: disable=protected-access
  assert all(_hint(op) is None for op in _traced(steps, features))


def test_clustered_gradients_are_the_kernels_to_bfloat16_round_off():
  tf.keras.utils.set_random_seed(0)
  _, names, _ = cu._steps("bfloat16")  # pylint: disable=protected-access
  initial = {k: v.numpy() for k, v in names.items()}
  clustered = _gradients("bfloat16", initial, True)
  kernels = _gradients("bfloat16", initial, False)
  float32 = _gradients("float32", initial, False)

  def distance(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)
  # The clusters ran: XLA rounds a fused chain of bfloat16 ops once where
  # the kernels round after each op, so the gradients are not bit-equal...
  assert distance(clustered, kernels) > 0
  # ...but that change is a small part of what bfloat16 itself changes
  # (measured: 0.3% against 21% from float32 on this tiny model).
  assert distance(clustered, kernels) < 0.1 * distance(kernels, float32)
