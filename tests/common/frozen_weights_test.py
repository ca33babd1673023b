"""Below float32, `TextModel.predict` runs the dense kernels as graph
constants (`bert_tf2.common.frozen_weights`): the same answers as reading
the variables, every kernel and bias taken as a constant, and traced again
(never answering with old weights) after `assign`, `fit` or a forced
retrace; float32 is never frozen."""

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.common import batch_parts
from bert_tf2.common import text_model as text_model_lib
from modeling import layers
from tests.common import tiny_dir

TEXTS = ["bob met ann", "the cat sat on the mat . " * 5, "", "a dog ran",
         "angela merkel visited paris", "江泽民在北京。"] * 7  # 6 batches of 8.


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
  return tiny_dir.write(str(tmp_path_factory.mktemp("tiny")))


def _load(directory, precision="bfloat16"):
  """The tiny classifier, its head scaled up: logits of order 1, so that
  the tolerances below are far under the differences between texts."""
  model = models.load(directory, task="classifier", num_labels=3,
                      max_seq_length=32, precision=precision)
  for weight in model.task.classifier.weights:
    weight.assign(weight * 300.0)
  # Biases as a trained model's (the tiny checkpoint's are zero).
  rng = np.random.RandomState(0)
  for dense in _dense_layers(model):
    dense.bias.assign(rng.normal(0.0, 0.02, dense.bias.shape))
  return model


def _close(a, b):
  """Equal to bfloat16 round-off (a few units in the last place: two
  kernels of the same maths round differently) of logits of order 1."""
  np.testing.assert_allclose(a, b, rtol=0.03, atol=0.03)


def _unfrozen(model, x):
  """model.predict(x) reading the variables on every batch."""
  model.freezes_weights = False
  try:
    return model.predict(x, batch_size=8, verbose=0)
  finally:
    del model.freezes_weights


def _dense_layers(model):
  return [l for l in layers.iter_layers(model.task)
          if isinstance(l, layers.Dense)]


def _reads(graph):
  return sum(op.type == "ReadVariableOp" for op in graph.get_operations())


def test_predict_takes_every_dense_weight_as_a_constant(directory):
  model = _load(directory)
  frozen_answers = model.predict(TEXTS, batch_size=8, verbose=0)
  step = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  denses = _dense_layers(model)
  assert len(denses) == 7  # Q, K, V, attention output, FFN x2, pooler.
  taken = {id(v) for v in step._variables}  # pylint: disable=protected-access
  for dense in denses:
    assert id(dense._kernel) in taken and id(dense.bias) in taken  # pylint: disable=protected-access
  # The traced step reads two variables fewer per dense layer and part of
  # the batch (`batch_parts`) than the same step unfrozen.
  parts = batch_parts.predict_parts(model.task.compute_dtype)

  def unfrozen_step(batch):
    text_model_lib._PARTS.count = parts  # pylint: disable=protected-access
    try:
      return model(batch[0], training=False)
    finally:
      text_model_lib._PARTS.count = 1  # pylint: disable=protected-access
  unfrozen_graph = tf.function(unfrozen_step).get_concrete_function(
      step.spec).graph
  assert _reads(step._step.graph) <= (  # pylint: disable=protected-access
      _reads(unfrozen_graph) - 2 * len(denses) * parts)
  # The same answers as the variables give (bfloat16 round-off at most;
  # the next test shows answers that differ).
  assert np.abs(frozen_answers).max() > 0.5
  _close(frozen_answers, _unfrozen(model, TEXTS))


def test_predict_takes_every_layer_norm_as_constants(directory):
  # Each LayerNorm runs ops.fusable_layer_norm on its gamma and beta as
  # float32 constants (oneDNN fuses it; tests/modeling/layer_norm_test.py).
  model = _load(directory)
  before = model.predict(TEXTS, batch_size=8, verbose=0)
  step = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  norms = [l for l in layers.iter_layers(model.task)
           if isinstance(l, layers.LayerNorm)]
  assert len(norms) == 3  # Embeddings, attention output, FFN output.
  taken = {id(v) for v in step._variables}  # pylint: disable=protected-access
  for norm in norms:
    assert id(norm.gamma) in taken and id(norm.beta) in taken
  # A new gamma is traced again and answered (a trained model's LayerNorm
  # weights change as its kernels do).
  norms[-1].gamma.assign(-3.0 * norms[-1].gamma)
  after = model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is not step  # pylint: disable=protected-access
  assert np.abs(after - before).max() > 0.5
  _close(after, _unfrozen(model, TEXTS))


def test_a_zero_bias_is_read_from_its_variable(directory):
  # A constant zero bias would let TensorFlow's graph optimizer drop the
  # BiasAdd and the MatMul + BiasAdd fusion with it: it stays a variable.
  model = _load(directory)
  dense = _dense_layers(model)[0]
  dense.bias.assign(tf.zeros_like(dense.bias))
  zero = model.predict(TEXTS, batch_size=8, verbose=0)
  step = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  taken = {id(v) for v in step._variables}  # pylint: disable=protected-access
  assert id(dense.bias) not in taken and id(dense._kernel) in taken  # pylint: disable=protected-access
  # Read, not frozen: a new value is answered by the same step.
  dense.bias.assign(tf.fill(dense.bias.shape, 3.0))
  moved = model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is step  # pylint: disable=protected-access
  assert np.abs(moved - zero).max() > 0.5
  _close(moved, _unfrozen(model, TEXTS))
  dense.bias.assign(tf.zeros_like(dense.bias))
  _close(zero, _unfrozen(model, TEXTS))


def test_changed_weights_are_never_answered_with_old_ones(directory):
  model = _load(directory)
  before = model.predict(TEXTS, batch_size=8, verbose=0)
  first = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  kernel = _dense_layers(model)[0].kernel  # The pooler's.
  kernel.assign(kernel * -2.0)
  after = model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is not first  # pylint: disable=protected-access
  assert np.abs(after - before).max() > 0.5
  _close(after, _unfrozen(model, TEXTS))
  # Unchanged weights: the frozen step is kept.
  model.predict(TEXTS, batch_size=8, verbose=0)
  kept = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is kept  # pylint: disable=protected-access
  # fit changes every weight: traced again, the answers the new weights'.
  model.compile(optimizer="adam")
  model.fit(TEXTS, np.arange(len(TEXTS)) % 3, batch_size=8, epochs=1,
            verbose=0)
  trained = model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is not kept  # pylint: disable=protected-access
  assert np.abs(trained - after).max() > 0.1
  _close(trained, _unfrozen(model, TEXTS))


def test_unchanged_weights_are_told_by_their_buffers(directory,
                                                    monkeypatch):
  # While no variable was written, each still reads its copy's buffer:
  # `matches` says so without comparing values; a write moves the buffer
  # (copy-on-write), and then the values are compared.
  model = _load(directory)
  model.predict(TEXTS, batch_size=8, verbose=0)
  step = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  compared = []
  all_equal = step._all_equal  # pylint: disable=protected-access
  monkeypatch.setattr(step, "_all_equal",
                      lambda values: compared.append(1) or all_equal(values))
  model.predict(TEXTS[:8], batch_size=8, verbose=0)
  model.predict(TEXTS, batch_size=8, verbose=0)
  assert not compared and text_model_lib._FROZEN[model] is step  # pylint: disable=protected-access
  # The same values written again: compared once, kept, then quick again.
  kernel = _dense_layers(model)[1].kernel
  kernel.assign(kernel.numpy())
  model.predict(TEXTS[:8], batch_size=8, verbose=0)
  model.predict(TEXTS[:8], batch_size=8, verbose=0)
  assert len(compared) == 1 and text_model_lib._FROZEN[model] is step  # pylint: disable=protected-access
  # A traced in-place update (as an optimizer's) is seen.
  tf.function(lambda: kernel.assign_add(tf.ones_like(kernel)))()
  before = model.predict(TEXTS[:8], batch_size=8, verbose=0)
  assert len(compared) == 2 and text_model_lib._FROZEN[model] is not step  # pylint: disable=protected-access
  _close(before, _unfrozen(model, TEXTS[:8]))


@pytest.mark.parametrize("x", [
    ["bob met ann", "a dog"],
    [("bob met ann", "a dog"), ("the cat", "")],
    (["bob met ann", "a dog"], ["the cat", "sat"]),
])
def test_one_batch_is_built_as_the_dataset_batches_it(x):
  batch = text_model_lib._one_batch(x)  # pylint: disable=protected-access
  data, _, _ = text_model_lib._as_dataset(x, None, 8)  # pylint: disable=protected-access
  assert text_model_lib._batch_spec(batch) == data.element_spec  # pylint: disable=protected-access
  tf.nest.map_structure(
      lambda a, b: np.testing.assert_array_equal(a.numpy(), b.numpy()),
      batch, next(iter(data)))


def test_one_batch_leaves_what_the_dataset_refuses_to_it():
  # Columns of different lengths: no batch of its own (the Dataset path
  # then refuses them, as before).
  assert text_model_lib._one_batch((["a", "b"], ["c"])) is None  # pylint: disable=protected-access
  with pytest.raises(ValueError):
    text_model_lib._as_dataset((["a", "b"], ["c"]), None, 8)  # pylint: disable=protected-access


def test_one_batch_and_the_loop_share_the_frozen_step(directory):
  model = _load(directory)
  model.predict(TEXTS[:8], batch_size=8, verbose=0)
  step = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is step  # pylint: disable=protected-access


def test_a_forced_retrace_traces_the_frozen_step_too(directory):
  model = _load(directory)
  model.predict(TEXTS, batch_size=8, verbose=0)
  first = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  model.make_predict_function(force=True)
  assert model not in text_model_lib._FROZEN  # pylint: disable=protected-access
  model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is not first  # pylint: disable=protected-access


def test_float32_reads_its_variables(directory):
  model = _load(directory, precision="float32")
  with layers.ConstantKernels() as taken:  # Active, yet float32: no effect.
    tf.function(lambda t: model(t, training=False))(tf.constant(TEXTS[:2]))
  assert not taken.variables
  before = model.predict(TEXTS, batch_size=8, verbose=0)
  step = text_model_lib._FROZEN[model]  # pylint: disable=protected-access
  assert not step._variables  # pylint: disable=protected-access
  # Its own traced step reads the variables: a change is answered at once,
  # by the same step, exactly as Keras' step answers.
  dense = _dense_layers(model)[0]
  dense.kernel.assign(dense.kernel * -2.0)
  after = model.predict(TEXTS, batch_size=8, verbose=0)
  assert text_model_lib._FROZEN[model] is step  # pylint: disable=protected-access
  assert np.abs(after - before).max() > 0.5
  np.testing.assert_array_equal(after, _unfrozen(model, TEXTS))


@pytest.mark.parametrize("precision", ["bfloat16", "float32"])
def test_one_batch_runs_the_frozen_step_without_the_keras_loop(directory,
                                                               precision):
  model = _load(directory, precision)
  one = model.predict(TEXTS[:8], batch_size=8, verbose=0)
  assert model.predict_function is None  # Keras' loop was not built.
  one /= 2.0  # Writable, as Keras' outputs.
  one *= 2.0
  looped = model.predict(TEXTS[:8], batch_size=8, verbose=0, callbacks=[])
  assert model.predict_function is not None
  np.testing.assert_array_equal(one, looped)
  pairs = [(t, "bob") for t in TEXTS[:5]]
  np.testing.assert_array_equal(
      model.predict(pairs, verbose=0),
      model.predict(pairs, verbose=0, callbacks=[]))


@pytest.mark.parametrize("precision", ["bfloat16", "float32"])
def test_many_batches_run_the_frozen_step_without_the_keras_loop(
    directory, precision):
  # A list of texts over several batches: the frozen step is called once
  # a batch from Python, with the outputs of Keras' loop (and its order).
  model = _load(directory, precision)
  texts = TEXTS[::-1] + ["ann"]  # 43 texts: 6 batches of 8 and one of 3.
  fast = model.predict(texts, batch_size=8, verbose=0)
  assert model.predict_function is None  # Keras' loop was not built.
  fast /= 2.0  # Writable, as Keras' outputs.
  fast *= 2.0
  model.predict(texts, batch_size=8)  # verbose="auto": no Keras loop.
  assert model.predict_function is None
  looped = model.predict(texts, batch_size=8, verbose=0, callbacks=[])
  assert model.predict_function is not None
  model.predict_function = None
  np.testing.assert_array_equal(  # A progress bar asked for: Keras' loop.
      model.predict(texts, batch_size=8, verbose=2), looped)
  assert model.predict_function is not None
  assert fast.shape == (43, 3)
  np.testing.assert_array_equal(fast, looped)
  assert len({tuple(row) for row in fast}) > 5  # Rows differ.
  for k in (0, 17, 42):  # In input order: each text's own answer.
    _close(fast[k], model.predict(texts[k:k + 1], verbose=0)[0])
  pairs = [(t, "bob") for t in TEXTS[:20]]
  np.testing.assert_array_equal(
      model.predict(pairs, batch_size=8, verbose=0),
      model.predict(pairs, batch_size=8, verbose=0, callbacks=[]))


def test_batches_of_different_shapes_are_left_to_the_keras_loop(directory):
  model = _load(directory)
  words = [["a", "b"], ["c", "d"], ["e", "f", "g"]]  # [2, 2], then [1, 3].
  assert model._predict_without_keras_loop(words, 2) is None  # pylint: disable=protected-access
  assert model not in text_model_lib._FROZEN  # pylint: disable=protected-access


def _bfloat16_matrices(export_dir):
  """The 2-D bfloat16 constants of a SavedModel's graph and functions."""
  from tensorflow.core.protobuf import saved_model_pb2  # pylint: disable=g-import-not-at-top
  saved = saved_model_pb2.SavedModel()
  with open(export_dir + "/saved_model.pb", "rb") as f:
    saved.ParseFromString(f.read())
  graph = saved.meta_graphs[0].graph_def
  nodes = list(graph.node) + [n for fn in graph.library.function
                              for n in fn.node_def]
  return [n for n in nodes if n.op == "Const" and
          n.attr["dtype"].type == tf.bfloat16.as_datatype_enum and
          len(n.attr["value"].tensor.tensor_shape.dim) == 2]


@pytest.mark.parametrize("precision", ["bfloat16", "float32"])
def test_a_saved_model_below_float32_holds_its_kernels_as_constants(
    directory, tmp_path, precision):
  model = _load(directory, precision=precision)
  predictor = models.load_predictor(directory, task="classifier",
                                    num_labels=3, max_seq_length=32,
                                    precision=precision)
  predictor.model.set_weights(model.get_weights())
  export_dir = predictor.export(str(tmp_path / "export"))
  constants = _bfloat16_matrices(export_dir)
  if precision == "float32":
    assert not constants
    return
  assert len(constants) >= len(_dense_layers(model))
  served = tf.saved_model.load(export_dir).signatures["serving_default"](
      text_a=tf.constant(TEXTS))
  _close(served["logits"].numpy(), _unfrozen(model, TEXTS))


def test_without_host_buffers_the_values_are_compared():
  # On a GPU the variables' arrays would be host copies: no buffer check
  # (`_buffers` None), every call compares the values.
  from bert_tf2.common import frozen_weights  # pylint: disable=g-import-not-at-top
  dense = layers.Dense(2, input_width=3, dtype="mixed_bfloat16")
  dense.kernel.assign(tf.ones([3, 2]))
  dense.bias.assign(tf.fill([2], 0.5))
  spec = tf.TensorSpec([None, 3], tf.float32)
  step = frozen_weights.FrozenStep(dense, dense, spec)
  assert step._buffers is not None  # pylint: disable=protected-access
  step._buffers = None  # pylint: disable=protected-access
  assert step.matches(dense, spec)
  dense.kernel.assign(tf.ones([3, 2]))  # Equal values, a new buffer.
  assert step.matches(dense, spec)
  step._buffers = None  # pylint: disable=protected-access
  dense.kernel.assign(tf.zeros([3, 2]))
  assert not step.matches(dense, spec)
