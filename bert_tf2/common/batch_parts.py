"""One op a core: a batch's task model run as parts side by side.

oneDNN's matmul gains little from a second thread on one small matrix and
much from two matrices at once. So below float32 the text models' `predict`
and their SavedModels run the task model on parts of each batch
(`in_parts`), which TensorFlow's executor runs side by side; the answers
are the whole batch's bit for bit. In a process that runs each op on one
thread (intra-op 1) `predict` takes one part a core, in any precision
(docs/results/performance_xeon_amx.md); `models.load` and
`models.load_predictor` choose that layout (`one_op_a_core`) where
TensorFlow has not started and nobody chose its threads.
"""

import os

import tensorflow as tf

from modeling import ops
from bert_tf2.common import InputError

# `threads=` of the loaders: one op a core where still open, or
# TensorFlow's threads as they are.
THREADS = ("one_op_a_core", "tensorflow")
_CHOSEN_BY_ENVIRONMENT = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")


def one_op_a_core(threads="one_op_a_core"):
  """Sets this process to run each op on one thread, one op a core at
  once (intra-op 1, inter-op = the cores), where that is still open: more
  than one core, TensorFlow not started (its threads are fixed at its
  first op), and no thread count chosen (`tf.config.threading`,
  TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS). Returns whether it
  set them; threads="tensorflow" leaves them as they are.

  Then `predict` runs one part of each batch a core (`predict_parts`):
  more sentences a second, but one text alone gets one core.
  """
  if threads not in THREADS:
    raise InputError("threads=%r: one of %s" % (threads, ", ".join(THREADS)))
  cores = cores_available()
  threading = tf.config.threading
  if (threads == "tensorflow" or cores < 2
      or any(os.environ.get(name) for name in _CHOSEN_BY_ENVIRONMENT)
      or threading.get_intra_op_parallelism_threads()
      or threading.get_inter_op_parallelism_threads()):
    return False
  try:
    threading.set_intra_op_parallelism_threads(1)
  except RuntimeError:  # TensorFlow has started: its threads are fixed.
    return False
  threading.set_inter_op_parallelism_threads(cores)
  return True


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
  """task(features) on `parts` consecutive parts of the batch's rows, the
  outputs joined along rows (the same: outputs are per row; a part may be
  empty).

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
