"""Estimator.train_and_evaluate: eval history, best checkpoint, early stop."""

import glob
import json
import os

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import runner
from bert_tf2.common import InputError
from bert_tf2.runner import periodic_eval
import optimization
from tests.runner import toy


def make_estimator(output_dir, optimizer_fn=toy.optimizer_fn, **config):
  config.setdefault("save_checkpoints_steps", 100)
  config.setdefault("iterations_per_loop", 100)
  cfg = runner.RunConfig(str(output_dir), **config)
  return runner.Estimator(toy.ToyTask(), cfg, optimizer_fn=optimizer_fn,
                          train_batch_size=8, eval_batch_size=8)


def frozen_optimizer():
  """Learning rate 0: the weights, so every eval metric, never change."""
  return optimization.create_optimizer(0.0, 100, 0)


EVAL_INPUT = toy.make_input_fn(32, repeat=False)


def steps_of(history):
  return [r["global_step"] for r in history]


@pytest.fixture(scope="module")
def improving(tmp_path_factory):
  """30 steps, eval every 4 (and at 30), best kept, 1 checkpoint kept."""
  out = tmp_path_factory.mktemp("improving")
  est = make_estimator(out, keep_checkpoint_max=1)
  est.train_and_evaluate(
      toy.make_input_fn(), EVAL_INPUT, 30, every_n_steps=4,
      early_stopping=runner.EarlyStopping("accuracy"), keep_best=True)
  return out, est


def test_history_at_every_n_steps_and_the_end(improving):
  out, est = improving
  assert est.global_step == 30 and not est.stopped_early
  history = periodic_eval.read_history(str(out))
  assert steps_of(history) == [4, 8, 12, 16, 20, 24, 28, 30]
  assert set(history[0]) == {"global_step", "accuracy", "mean_loss", "loss"}
  # A checkpoint was saved at every evaluated step; only the newest is kept.
  assert os.path.basename(runner.latest_checkpoint(str(out))) == (
      "model.ckpt-30")
  # TensorBoard scalars in output_dir/eval at the same steps.
  steps = []
  for path in glob.glob(str(out / "eval" / "events.out.tfevents.*")):
    for event in tf.compat.v1.train.summary_iterator(path):
      steps += [event.step for v in event.summary.value
                if v.tag == "accuracy"]
  assert sorted(steps) == steps_of(history)


def test_best_checkpoint_kept_with_its_metrics(improving):
  out, est = improving
  history = periodic_eval.read_history(str(out))
  accuracies = [r["accuracy"] for r in history]
  best = history[int(np.argmax(accuracies))]  # First of equal maxima.
  assert len(set(accuracies)) > 1  # Training did change the metric.
  with open(out / "best" / "best_metrics.json") as f:
    assert json.load(f) == best
  prefix = runner.best_checkpoint(str(out))
  assert prefix == str(out / "best" / ("model.ckpt-%d" % best["global_step"]))
  assert sorted(os.listdir(out / "best")) == sorted(
      ["checkpoint", "best_metrics.json"] +
      [os.path.basename(p) for p in glob.glob(prefix + ".*")])
  # Its weights give the recorded metrics again.
  again = est.evaluate(EVAL_INPUT, checkpoint_path=prefix)
  assert int(again["global_step"]) == best["global_step"]
  assert float(again["accuracy"]) == pytest.approx(best["accuracy"])
  assert float(again["loss"]) == pytest.approx(best["loss"], rel=1e-5)


def test_early_stopping_and_no_training_after_restart(tmp_path):
  stopping = runner.EarlyStopping("loss", patience=2)
  assert stopping.mode == "min"
  est = make_estimator(tmp_path, optimizer_fn=frozen_optimizer)
  est.train_and_evaluate(toy.make_input_fn(), EVAL_INPUT, 40,
                         every_n_steps=5, early_stopping=stopping,
                         keep_best=True)
  # Step 5 is the best; 10 and 15 do not improve: stop at 15.
  assert est.stopped_early and est.global_step == 15
  assert steps_of(periodic_eval.read_history(str(tmp_path))) == [5, 10, 15]
  assert os.path.basename(runner.latest_checkpoint(str(tmp_path))) == (
      "model.ckpt-15")
  assert os.path.basename(runner.best_checkpoint(str(tmp_path))) == (
      "model.ckpt-5")
  record = periodic_eval.read_stop(str(tmp_path))
  assert record["global_step"] == 15 and record["best_global_step"] == 5
  again = make_estimator(tmp_path, optimizer_fn=frozen_optimizer)
  again.train_and_evaluate(toy.make_input_fn(), EVAL_INPUT, 40,
                           every_n_steps=5, early_stopping=stopping)
  assert again.stopped_early and again.global_step == 0  # Nothing restored.
  assert steps_of(periodic_eval.read_history(str(tmp_path))) == [5, 10, 15]
  assert os.path.basename(runner.latest_checkpoint(str(tmp_path))) == (
      "model.ckpt-15")


def test_resume_keeps_patience_count(tmp_path):
  """Interrupted after the second eval: the resumed run stops at the same
  step as an uninterrupted one."""
  stopping = runner.EarlyStopping("accuracy", patience=2)
  make_estimator(tmp_path, optimizer_fn=frozen_optimizer).train_and_evaluate(
      toy.make_input_fn(), EVAL_INPUT, 10, every_n_steps=5,
      early_stopping=stopping)
  est = make_estimator(tmp_path, optimizer_fn=frozen_optimizer)
  est.train_and_evaluate(toy.make_input_fn(), EVAL_INPUT, 40,
                         every_n_steps=5, early_stopping=stopping)
  assert est.stopped_early and est.global_step == 15


def test_unknown_metric_is_one_line_error_before_training(tmp_path):
  est = make_estimator(tmp_path)
  with pytest.raises(InputError) as e:
    est.train_and_evaluate(toy.make_input_fn(), EVAL_INPUT, 10,
                           every_n_steps=5,
                           early_stopping=runner.EarlyStopping("eval_acc"))
  message = str(e.value)
  assert "\n" not in message
  assert message == ("--early_stopping_metric=eval_acc: evaluation does not "
                     "produce it; it produces accuracy, loss, mean_loss")
  assert os.listdir(tmp_path) == []


def test_flag_combinations():
  from absl import flags  # pylint: disable=g-import-not-at-top
  values = flags.FlagValues()
  runner.define_flags(values)
  values(["prog"])
  assert runner.early_stopping_from_flags(values) == (0, None, False)
  values.eval_every_n_steps = 10
  values.early_stopping_metric = "eval_loss"
  values.early_stopping_patience = 3
  every, stopping, keep = runner.early_stopping_from_flags(values)
  assert (every, stopping.metric, stopping.mode, stopping.patience, keep) == (
      10, "eval_loss", "min", 3, False)
  values.early_stopping_metric = None
  with pytest.raises(InputError, match="--early_stopping_patience needs "
                     "--early_stopping_metric"):
    runner.early_stopping_from_flags(values)
  values.eval_every_n_steps = 0
  values.keep_best_checkpoint = True
  with pytest.raises(InputError, match="--early_stopping_patience needs "
                     "--eval_every_n_steps"):
    runner.early_stopping_from_flags(values)
  # A mode alone would act nowhere: refused like the other stopping flags.
  values.keep_best_checkpoint = False
  values.early_stopping_patience = 0
  values.early_stopping_mode = "max"
  with pytest.raises(InputError, match="--early_stopping_mode needs "
                     "--eval_every_n_steps"):
    runner.early_stopping_from_flags(values)
  values.eval_every_n_steps = 10
  with pytest.raises(InputError, match="--early_stopping_mode needs "
                     "--early_stopping_metric"):
    runner.early_stopping_from_flags(values)


class ToyWithScalars(toy.ToyTask):
  """Logs its batch loss as a training scalar (so it must equal "loss")."""

  def compute_loss(self, model, features, training):
    loss, outputs = super().compute_loss(model, features, training)
    outputs["batch_loss"] = loss
    return loss, outputs

  def training_scalars(self):
    return ("batch_loss",)


@pytest.mark.parametrize("accumulation", [1, 2])
def test_training_scalars_logged_beside_loss(tmp_path, accumulation):
  cfg = runner.RunConfig(str(tmp_path), save_checkpoints_steps=0,
                         iterations_per_loop=3, log_step_count_steps=3,
                         gradient_accumulation_steps=accumulation)
  est = runner.Estimator(ToyWithScalars(), cfg,
                         optimizer_fn=toy.optimizer_fn, train_batch_size=8)
  est.train(toy.make_input_fn(), 9)
  values = {}
  for path in glob.glob(str(tmp_path / "events.out.tfevents.*")):
    for event in tf.compat.v1.train.summary_iterator(path):
      for v in event.summary.value:
        values.setdefault(v.tag, {})[event.step] = float(
            tf.make_ndarray(v.tensor))
  assert sorted(values["batch_loss"]) == [3, 6, 9]
  for step, loss in values["loss"].items():
    assert values["batch_loss"][step] == pytest.approx(loss, rel=1e-6)
