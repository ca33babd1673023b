"""One op a core: a batch's task model run as parts side by side.

TensorFlow's oneDNN matmul gains little from a second thread on one small
matrix and much from two matrices at once: on a 2-core AMX Xeon the
bfloat16 [864, 384] x [384, 384] of MiniLM on 32 sentences took 0.22 ms on
both cores, PyTorch 0.12 ms, and two halves of the batch side by side
0.12 ms the pair (float32 0.79 -> 0.67 ms). So below float32 the text
models' `predict` and their SavedModels run the task model on parts of
each batch (`in_parts`), whose ops TensorFlow's executor runs side by
side; the answers are the whole batch's bit for bit. In a process that
runs each op on one thread
(`tf.config.threading.set_intra_op_parallelism_threads(1)`, chosen before
TensorFlow's first op) `predict` takes one part a core, in any precision:
`load_predictor(run).predict` on 1,000 sentences, bfloat16 699 -> 1,143
sentences/s, float32 247 -> 440 (default threads: bfloat16 767 -> 804,
float32 353 -> 358, so float32 keeps Keras' own step there;
docs/results/performance_xeon_amx.md).
"""

import os

import tensorflow as tf

from modeling import ops


def predict_parts(compute_dtype):
  """The parts `predict` runs a batch of a task computing in
  `compute_dtype` as: one a core where the process runs each op on one
  thread, else 2 below float32 and 1 in float32 (one core: 1)."""
  cores = cores_available()
  if cores < 2:
    return 1
  if tf.config.threading.get_intra_op_parallelism_threads() == 1:
    return cores
  return served_parts(compute_dtype)


def cores_available():
  """The cores this process may run on (its CPU affinity where the OS
  says, else every core)."""
  if hasattr(os, "sched_getaffinity"):  # Linux.
    return len(os.sched_getaffinity(0))
  return os.cpu_count() or 1


def served_parts(compute_dtype):
  """The parts a SavedModel of a task computing in `compute_dtype` runs a
  batch as: 2 below float32, 1 in float32 (its graph does not depend on
  the threads of the process that exports it)."""
  return 2 if ops.below_float32(compute_dtype) else 1


def in_parts(task, features, parts):
  """task(features) computed on `parts` consecutive parts of the batch's
  rows, each part the task model on its own rows, the outputs joined
  along rows: independent ops, which TensorFlow's executor runs side by
  side. The task's outputs are per row, so they are the same (a part may
  be empty: fewer rows than parts).

    >>> double = lambda f: {"y": f["x"] * 2}
    >>> in_parts(double, {"x": tf.range(5)}, 2)["y"].numpy().tolist()
    [0, 2, 4, 6, 8]
  """
  rows = tf.shape(tf.nest.flatten(features)[0])[0]
  bounds = [rows * i // parts for i in range(parts + 1)]
  outputs = [task(tf.nest.map_structure(lambda t, a=a, b=b: t[a:b],
                                        features))
             for a, b in zip(bounds[:-1], bounds[1:])]
  return tf.nest.map_structure(lambda *p: tf.concat(p, 0), *outputs)
