"""`Estimator.predict` below float32 (the scripts' --do_predict
--precision=bfloat16) runs the predict step with the restored dense weights
as constants (`bert_tf2.common.frozen_weights`), as the text models'
`predict` does: the same answers as reading the variables (bfloat16
round-off), traced anew on every call, so a second checkpoint is never
answered with the first one's weights; float32 is left as it was."""

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2 import runner
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import frozen_weights
from bert_tf2.runner import estimator as estimator_lib
from bert_tf2.runner.task import ModelTask
from modeling import layers
from tests.runner import toy

CFG = modeling.BertConfig(vocab_size=40, hidden_size=16, num_hidden_layers=1,
                          num_attention_heads=2, intermediate_size=24,
                          max_position_embeddings=16)


def _input_fn(params):
  rng = np.random.RandomState(1)
  n = 10
  features = {"input_ids": rng.randint(5, 40, [n, 8]).astype(np.int32),
              "input_mask": np.ones([n, 8], np.int32),
              "segment_ids": np.zeros([n, 8], np.int32),
              "label_ids": np.zeros([n], np.int32),
              "is_real_example": np.ones([n], np.int32)}
  return tf.data.Dataset.from_tensor_slices(features).batch(
      params["batch_size"])


def _checkpoint(path, seed):
  """A classifier checkpoint with trained-like weights: nonzero biases and
  a scaled head (logits of order 1)."""
  tf.keras.utils.set_random_seed(seed)
  model = BertClassifier(CFG, 3)
  model({"input_ids": tf.ones([1, 8], tf.int32)})
  rng = np.random.RandomState(seed)
  for dense in layers.iter_layers(model):
    if isinstance(dense, layers.Dense):
      dense.bias.assign(rng.normal(0.0, 0.1, dense.bias.shape))
  for weight in model.classifier.weights:
    weight.assign(weight * 300.0)
  return modeling.save_checkpoint(modeling.original_variable_names(model),
                                  str(path), 0)


def _predict(est, checkpoint):
  return np.array([p["logits"] for p in est.predict(
      _input_fn, checkpoint_path=checkpoint)])


@pytest.fixture
def steps(monkeypatch):
  """The FrozenSteps the estimator builds."""
  built, real = [], frozen_weights.FrozenStep

  def spy(*args, **kwargs):
    built.append(real(*args, **kwargs))
    return built[-1]
  monkeypatch.setattr(frozen_weights, "FrozenStep", spy)
  return built


def _estimator(tmp_path, precision):
  return runner.Estimator(
      ModelTask(lambda: BertClassifier(CFG, 3)),
      runner.RunConfig(str(tmp_path / precision), precision=precision),
      optimizer_fn=toy.optimizer_fn, train_batch_size=4, eval_batch_size=4,
      predict_batch_size=4)


def test_bfloat16_predicts_with_constant_weights(tmp_path, steps,
                                                 monkeypatch):
  first = _checkpoint(tmp_path / "a" / "model", 0)
  second = _checkpoint(tmp_path / "b" / "model", 1)
  est = _estimator(tmp_path, "bfloat16")
  got = [_predict(est, first), _predict(est, second)]
  assert len(steps) == 2  # One step a call, each after its restore.
  denses = [l for l in layers.iter_layers(est._model)  # pylint: disable=protected-access
            if isinstance(l, layers.Dense)]
  taken = {id(v) for v in steps[0]._variables}  # pylint: disable=protected-access
  assert all(id(d._kernel) in taken and id(d.bias) in taken for d in denses)  # pylint: disable=protected-access
  # Reading the variables (the step before this change) gives the same
  # answers to bfloat16 round-off, checkpoint by checkpoint.
  monkeypatch.setattr(estimator_lib.Estimator, "_frozen_predict_fn",
                      lambda *unused: None)
  want = [_predict(est, first), _predict(est, second)]
  assert len(steps) == 2
  for g, w in zip(got, want):
    assert g.shape == (10, 3)
    np.testing.assert_allclose(g, w, rtol=0.03, atol=0.03)
  assert np.abs(want[0] - want[1]).max() > 0.5  # The test can tell.


def test_float32_reads_its_variables(tmp_path, steps):
  first = _checkpoint(tmp_path / "a" / "model", 0)
  got = _predict(_estimator(tmp_path, "float32"), first)
  assert not steps and got.shape == (10, 3)
