"""`predict` below float32 runs the task model on parts of each batch side
by side (`batch_parts`): the same answers as the whole batch, each dense
weight taken once; so does a SavedModel below float32. The loaders' thread
layout (one op a core, `batch_parts.one_op_a_core`) in fresh processes."""

import json
import os
import subprocess

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.common import InputError
from bert_tf2.common import batch_parts
from bert_tf2.common import text_model as text_model_lib
from tests import warm_python
from tests.common import tiny_dir
from tests.common.cross_path import REPO

TEXTS = ["bob met ann", "the cat sat on the mat . " * 5, "", "a dog ran",
         "angela merkel visited paris", "江泽民在北京。", "x"] * 3  # 21.


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
  return tiny_dir.write(str(tmp_path_factory.mktemp("tiny")))


def test_in_parts_joins_the_parts_of_any_nest():
  features = {"a": tf.reshape(tf.range(14), [7, 2]),
              "b": tf.constant(list("abcdefg"))}
  task = lambda f: {"sum": tf.reduce_sum(f["a"], 1), "b": [f["b"], f["a"]]}
  for parts in (1, 2, 3, 7, 9):  # 9: some parts empty.
    got = batch_parts.in_parts(task, features, parts)
    want = task(features)
    for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
      np.testing.assert_array_equal(g.numpy(), w.numpy())


def _predict(model, parts, monkeypatch, x, batch_size):
  monkeypatch.setattr(batch_parts, "predict_parts", lambda dtype: parts)
  model.make_predict_function(force=True)  # Traced again for `parts`.
  return model.predict(x, batch_size=batch_size, verbose=0)


@pytest.mark.parametrize("windows", [False, True])
def test_parts_answer_as_the_whole_batch(directory, monkeypatch, windows):
  extra = dict(long_text="sliding_window", doc_stride=4) if windows else {}
  model = models.load(directory, task="classifier", num_labels=3,
                      max_seq_length=16, precision="bfloat16", **extra)
  for weight in model.task.classifier.weights:  # Logits of order 1.
    weight.assign(weight * 300.0)
  whole = _predict(model, 1, monkeypatch, TEXTS, 8)
  halves = _predict(model, 2, monkeypatch, TEXTS, 8)
  assert np.abs(whole).max() > 0.5 and np.ptp(whole) > 0.5
  np.testing.assert_array_equal(halves, whole)
  # Fewer rows than parts (one text a batch), and the one-batch path.
  np.testing.assert_array_equal(
      _predict(model, 2, monkeypatch, TEXTS[:3], 1), whole[:3])
  np.testing.assert_array_equal(
      _predict(model, 3, monkeypatch, TEXTS[:5], 8), whole[:5])


def test_each_dense_weight_is_one_constant_for_every_part(directory,
                                                          monkeypatch):
  model = models.load(directory, task="classifier", num_labels=2,
                      max_seq_length=16, precision="bfloat16")
  steps = {}
  for parts in (1, 2):
    _predict(model, parts, monkeypatch, TEXTS, 8)
    steps[parts] = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  one, two = (steps[p]._variables for p in (1, 2))  # pylint: disable=protected-access
  assert one and [id(v) for v in two] == [id(v) for v in one]
  # Two parts: the task model twice in the step (its matmuls twice).
  matmuls = {p: sum("MatMul" in op.type
                    for op in steps[p]._step.graph.get_operations())  # pylint: disable=protected-access
             for p in (1, 2)}
  assert matmuls[1] > 0 and matmuls[2] == 2 * matmuls[1]


def test_the_parts_follow_the_threads_and_the_precision(monkeypatch):
  monkeypatch.setattr(batch_parts, "cores_available", lambda: 4)
  intra = []
  monkeypatch.setattr(tf.config.threading,
                      "get_intra_op_parallelism_threads",
                      lambda: intra[-1])
  intra.append(0)  # TensorFlow's default: every core for each op.
  assert batch_parts.predict_parts("bfloat16") == 2
  assert batch_parts.predict_parts("float32") == 1
  intra.append(1)  # One thread an op: one part a core.
  assert batch_parts.predict_parts("bfloat16") == 4
  assert batch_parts.predict_parts("float32") == 4
  monkeypatch.setattr(batch_parts, "cores_available", lambda: 1)
  assert batch_parts.predict_parts("bfloat16") == 1


def test_a_saved_model_below_float32_serves_in_parts(directory, tmp_path,
                                                     monkeypatch):
  from tests.common import frozen_weights_test  # pylint: disable=g-import-not-at-top
  assert batch_parts.served_parts("bfloat16") == 2
  assert batch_parts.served_parts("float32") == 1
  predictor = models.load_predictor(directory, task="classifier",
                                    num_labels=3, max_seq_length=16,
                                    precision="bfloat16")
  for weight in predictor.model.task.classifier.weights:
    weight.assign(weight * 300.0)
  served, constants, matmuls = {}, {}, {}
  for parts in (1, 2):
    monkeypatch.setattr(batch_parts, "served_parts", lambda dtype, n=parts: n)
    export_dir = predictor.export(str(tmp_path / ("parts%d" % parts)))
    constants[parts] = len(frozen_weights_test._bfloat16_matrices(export_dir))  # pylint: disable=protected-access
    matmuls[parts] = _matmuls(export_dir)
    served[parts] = tf.saved_model.load(export_dir).signatures[
        "serving_default"](text_a=tf.constant(TEXTS))["logits"].numpy()
  assert np.ptp(served[1]) > 0.5
  np.testing.assert_array_equal(served[2], served[1])
  assert constants[1] > 0 and constants[2] == constants[1]
  assert matmuls[1] > 0 and matmuls[2] == 2 * matmuls[1]


def _matmuls(export_dir):
  """The MatMul nodes of a SavedModel's functions."""
  from tensorflow.core.protobuf import saved_model_pb2  # pylint: disable=g-import-not-at-top
  saved = saved_model_pb2.SavedModel()
  with open(export_dir + "/saved_model.pb", "rb") as f:
    saved.ParseFromString(f.read())
  graph = saved.meta_graphs[0].graph_def
  return sum(n.op == "MatMul" for fn in graph.library.function
             for n in fn.node_def)


def test_a_sentence_encoder_predicts_in_parts(directory, monkeypatch):
  encoder = models.load(directory, task="embedding", max_seq_length=16,
                        precision="bfloat16")
  whole = _predict(encoder, 1, monkeypatch, TEXTS, 8)
  halves = _predict(encoder, 2, monkeypatch, TEXTS, 8)
  assert whole.shape[0] == len(TEXTS) and np.ptp(whole) > 0.1
  np.testing.assert_array_equal(halves, whole)
  matmuls = sum("MatMul" in op.type for op in text_model_lib._FROZEN[  # pylint: disable=protected-access
      encoder]._step.graph.get_operations())  # pylint: disable=protected-access
  _predict(encoder, 1, monkeypatch, TEXTS, 8)
  assert matmuls == 2 * sum("MatMul" in op.type for op in text_model_lib._FROZEN[  # pylint: disable=protected-access
      encoder]._step.graph.get_operations())  # pylint: disable=protected-access


# A fresh process (tests/warm_python.py: TensorFlow imported, not started)
# with 2 cores, whatever the machine's: `setup` runs first, then `call`;
# it prints the threads TensorFlow runs with and what `call` returned.
_FRESH = """
import json
import numpy as np
import tensorflow as tf
from bert_tf2 import models
from bert_tf2.common import batch_parts
batch_parts.cores_available = lambda: 2
%s
got = %s
print(json.dumps({"threads": [
    tf.config.threading.get_intra_op_parallelism_threads(),
    tf.config.threading.get_inter_op_parallelism_threads()],
    "got": got, "parts": batch_parts.predict_parts("float32")}))
"""


def _fresh(setup, call, env=None):
  environment = dict(os.environ, PYTHONPATH=REPO, **(env or {}))
  out = subprocess.run([warm_python.command(), "-c", _FRESH % (setup, call)],
                       env=environment, capture_output=True, text=True,
                       timeout=600, check=False)
  assert out.returncode == 0, out.stderr[-3000:]
  return json.loads(out.stdout.strip().splitlines()[-1])


# Defines `answers(**kw)`: a tiny classifier's logits on TEXTS, its head's
# weights set (a new head is drawn at random in each process).
_ANSWERS = """
def answers(**kw):
  model = models.load_predictor(%r, task="classifier", num_labels=3,
                                max_seq_length=16, **kw).model
  for w in model.task.classifier.weights:
    w.assign(np.linspace(-30, 30, int(np.prod(w.shape))).reshape(w.shape))
  return model.predict(%r, verbose=0).tolist()
"""


def test_the_loaders_set_a_fresh_process_to_one_op_a_core(directory):
  setup = _ANSWERS % (directory, TEXTS)
  own = _fresh(setup, "answers()")
  kept = _fresh(setup, "answers(threads='tensorflow')")
  assert own["threads"] == [1, 2] and own["parts"] == 2
  assert kept["threads"] == [0, 0] and kept["parts"] == 1
  # The same answers, one part a core or the whole batch.
  assert np.ptp(kept["got"]) > 0.5
  np.testing.assert_allclose(own["got"], kept["got"], atol=1e-5)
  # `load` too.
  assert _fresh("", "type(models.load(%r, task='classifier', num_labels=2,"
                " max_seq_length=16)).__name__" % directory)[
                    "threads"] == [1, 2]


@pytest.mark.parametrize("setup,env,threads", [
    ("tf.constant(1)", None, [0, 0]),  # Started: its threads are fixed.
    ("tf.config.threading.set_intra_op_parallelism_threads(3)", None,
     [3, 0]),
    ("tf.config.threading.set_inter_op_parallelism_threads(3)", None,
     [0, 3]),
    ("", {"TF_NUM_INTRAOP_THREADS": "2"}, [0, 0]),
    ("batch_parts.cores_available = lambda: 1", None, [0, 0]),
])
def test_one_op_a_core_leaves_threads_chosen_or_fixed(setup, env, threads):
  got = _fresh(setup, "batch_parts.one_op_a_core()", env)
  assert got["got"] is False and got["threads"] == threads


def test_one_op_a_core_sets_them_where_open_and_refuses_other_values():
  assert _fresh("", "batch_parts.one_op_a_core()") == {
      "threads": [1, 2], "got": True, "parts": 2}
  with pytest.raises(InputError, match=r"threads='fast': one of "
                     "one_op_a_core, tensorflow"):
    batch_parts.one_op_a_core("fast")
