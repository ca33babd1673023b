"""The project's tf.functions trace without AutoGraph.

Every control flow of the traced code is written as TensorFlow ops
(`tf.while_loop`, `tf.cond`, `tf.scan`) or Keras ops, so AutoGraph's
source-to-source conversion is pure cost: it was half the trace of the
runner's training loop (MiniLM classifier: 3.0 s against 1.6 s without,
docs/performance.md). Each `tf.function(...)` of the product passes
`autograph=False`; a task traced by the runner is plain graph code, as
the original's `model_fn` was under TPUEstimator.
"""

import ast
import os

import pytest
import tensorflow as tf

import modeling
import optimization
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.runner import loops
from bert_tf2.runner.task import ModelTask
from tests.golden import REPO_ROOT

PACKAGES = ("bert_tf2", "modeling", "optimization", "tokenization")


def _product_files():
  for name in sorted(os.listdir(REPO_ROOT)):
    if name.endswith(".py"):
      yield os.path.join(REPO_ROOT, name)
  for package in PACKAGES:
    for root, _, files in os.walk(os.path.join(REPO_ROOT, package)):
      for name in sorted(files):
        if name.endswith(".py"):
          yield os.path.join(root, name)


# tf.data methods that trace a Python function (with AutoGraph unless the
# function is wrapped in tf.autograph.experimental.do_not_convert), and the
# position of that function among their arguments.
DATASET_FUNCTION_ARG = {"map": 0, "filter": 0, "reduce": 1}


def _is_do_not_convert(node):
  return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
          and node.func.attr == "do_not_convert")


def converting_tf_functions(path):
  """["file:line"] of the calls in `path` that trace with AutoGraph: a
  `tf.function(...)` without `autograph=False`, a `.map`, `.filter` or
  `.reduce` whose function is not wrapped in `do_not_convert` (or named
  for a value that is)."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  wrapped = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and _is_do_not_convert(node.value)
             for t in node.targets if isinstance(t, ast.Name)}
  found = []
  for node in ast.walk(tree):
    if not (isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)):
      continue
    attr = node.func.attr
    if (attr == "function" and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "tf"):
      converts = not any(
          k.arg == "autograph" and isinstance(k.value, ast.Constant)
          and k.value.value is False for k in node.keywords)
    elif attr in DATASET_FUNCTION_ARG and len(node.args) > (
        DATASET_FUNCTION_ARG[attr]):
      fn = node.args[DATASET_FUNCTION_ARG[attr]]
      if attr == "reduce" and "ReduceOp" in ast.unparse(node.args[0]):
        continue  # strategy.reduce(ReduceOp.X, value): no function.
      converts = not (_is_do_not_convert(fn) or (
          isinstance(fn, ast.Name) and fn.id in wrapped))
    else:
      continue
    if converts:
      found.append("%s:%d" % (os.path.relpath(path, REPO_ROOT), node.lineno))
  return found


def test_every_product_tf_function_and_dataset_function_skips_autograph():
  found = [hit for path in _product_files()
           for hit in converting_tf_functions(path)]
  assert not found, found


def test_the_scan_sees_a_converting_tf_function(tmp_path):
  path = tmp_path / "example.py"
  path.write_text(
      "import tensorflow as tf\n"
      "a = tf.function(lambda x: x, autograph=False)\n"
      "b = tf.function(lambda x: x, reduce_retracing=True)\n"
      "c = tf.function(lambda x: x, autograph=True)\n"
      "plain = tf.autograph.experimental.do_not_convert(lambda x: x)\n"
      "d = data.map(plain).filter(lambda x: x)\n"
      "e = data.map(tf.autograph.experimental.do_not_convert(abs))\n"
      "f = data.reduce(0, lambda n, _: n + 1)\n"
      "g = strategy.reduce(tf.distribute.ReduceOp.SUM, x, axis=None)\n")
  hits = converting_tf_functions(str(path))
  assert [h.rsplit(":", 1)[1] for h in hits] == ["3", "4", "6", "8"]


CONFIG = modeling.BertConfig(
    vocab_size=30, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
    intermediate_size=32, max_position_embeddings=8, type_vocab_size=2)


class _TensorIfTask(ModelTask):
  """A task whose loss branches in Python on a tensor: AutoGraph would
  rewrite the `if` as a tf.cond; plain graph tracing refuses it."""

  def compute_loss(self, model, features, training):
    loss, outputs = super().compute_loss(model, features, training)
    if loss > 100.0:
      loss = loss / 2.0
    return loss, outputs


def test_the_runner_loop_refuses_a_tensor_if_naming_autograph():
  features = {"input_ids": tf.ones([2, 8], tf.int32),
              "input_mask": tf.ones([2, 8], tf.int32),
              "segment_ids": tf.zeros([2, 8], tf.int32),
              "label_ids": tf.constant([0, 1], tf.int32)}
  task = _TensorIfTask(lambda: BertClassifier(CONFIG, num_labels=2))
  model = task.build_model()
  task.compute_loss(model, features, training=False)  # Eager: a Python if.
  optimizer = optimization.create_optimizer(1e-3, 10, 1)
  optimizer.gradients_aggregated = True
  optimizer.set_variable_names(task.checkpoint_variables(model))
  optimizer.build(model.trainable_variables)
  steps = loops.TrainSteps(task, model, optimizer,
                           tf.distribute.get_strategy(), aggregated=True)
  iterator = iter(tf.data.Dataset.from_tensors(features).repeat())
  with pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                     match="as a Python `bool` is not allowed"):
    steps.loop(iterator, tf.constant(1), tf.Variable(False, trainable=False))
