"""runner.Estimator on the default strategy, in process (toy task)."""

import glob
import os
import types

from absl import flags
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2 import runner
from tests.runner import toy


def make_estimator(output_dir, task=None, batch=8, init_checkpoint=None,
                   **config):
  config.setdefault("save_checkpoints_steps", 5)
  config.setdefault("iterations_per_loop", 5)
  config.setdefault("skip_consumed_batches", True)
  cfg = runner.RunConfig(str(output_dir), **config)
  return runner.Estimator(
      task or toy.ToyTask(), cfg,
      optimizer_fn=toy.optimizer_fn,
      init_checkpoint=init_checkpoint, train_batch_size=batch,
      eval_batch_size=8, predict_batch_size=8)


def weights_of(output_dir):
  return toy.checkpoint_arrays(runner.latest_checkpoint(str(output_dir)))


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
  """20 uninterrupted steps; checkpoints every 5, keep the last 2."""
  out = tmp_path_factory.mktemp("straight")
  est = make_estimator(out, keep_checkpoint_max=2)
  est.train(toy.make_input_fn(), 20)
  return out, est


def test_checkpoint_names_steps_and_retention(straight):
  out, est = straight
  assert est.global_step == 20
  # TPUEstimator's accessors: the run's config, strategy and optimizer.
  assert est.config.output_dir == str(out)
  assert est.strategy is tf.distribute.get_strategy()
  assert int(est.optimizer.iterations) == 20
  ckpt = runner.latest_checkpoint(str(out))
  assert os.path.basename(ckpt) == "model.ckpt-20"
  model_names = sorted(toy.ToyTask().checkpoint_variables(est.model))
  expected = set(model_names) | {"global_step"}
  expected |= {n + "/adam_m" for n in model_names}
  expected |= {n + "/adam_v" for n in model_names}
  arrays = weights_of(out)
  assert set(arrays) == expected
  assert arrays["global_step"].dtype == np.int64
  assert int(arrays["global_step"]) == 20
  # keep_checkpoint_max=2: only 15 and 20 remain, and the state file agrees.
  steps = sorted(int(p.split("-")[-1].split(".")[0])
                 for p in glob.glob(str(out / "model.ckpt-*.index")))
  assert steps == [15, 20]
  state = tf.train.get_checkpoint_state(str(out))
  assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
      "model.ckpt-15", "model.ckpt-20"]


def test_summaries_written(straight):
  out, _ = straight
  tags = set()
  for path in glob.glob(str(out / "events.out.tfevents.*")):
    for event in tf.compat.v1.train.summary_iterator(path):
      for value in event.summary.value:
        tags.add(value.tag)
  assert {"loss", "learning_rate", "examples_per_second"} <= tags


def test_resume_reaches_same_weights(straight, tmp_path):
  """10 steps, a new Estimator resumes to 20: identical to 20 straight."""
  make_estimator(tmp_path).train(toy.make_input_fn(), 10)
  resumed = make_estimator(tmp_path)
  resumed.train(toy.make_input_fn(), 20)
  assert resumed.global_step == 20
  ours, theirs = weights_of(tmp_path), weights_of(straight[0])
  assert set(ours) == set(theirs)
  for name in theirs:
    np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-6,
                               atol=1e-7, err_msg=name)


def test_nothing_to_do_when_already_at_max_steps(straight):
  out, _ = straight
  before = sorted(os.listdir(out))
  make_estimator(out).train(toy.make_input_fn(), 20)
  assert sorted(os.listdir(out)) == before


def test_output_dir_wins_over_init_checkpoint(straight, tmp_path):
  out, _ = straight
  init = runner.latest_checkpoint(str(out))
  # Fresh dir: starts from init_checkpoint's weights (not its step/slots).
  est = make_estimator(tmp_path, init_checkpoint=init)
  est.train(toy.make_input_fn(), 1)
  results = est.evaluate(toy.make_input_fn(16, repeat=False))
  assert int(results["global_step"]) == 1
  # Before training: weights are the init checkpoint's.
  est2 = make_estimator(tmp_path / "b", init_checkpoint=init)
  rows = list(est2.predict(toy.make_input_fn(3, repeat=False,
                                             drop_remainder=False)))
  est3 = make_estimator(out)
  rows3 = list(est3.predict(toy.make_input_fn(3, repeat=False,
                                              drop_remainder=False)))
  np.testing.assert_allclose(rows[0]["probabilities"],
                             rows3[0]["probabilities"], rtol=1e-6)
  # With a checkpoint in output_dir, init_checkpoint is ignored.
  est4 = make_estimator(out, init_checkpoint=str(tmp_path / "missing.ckpt"))
  est4.train(toy.make_input_fn(), 20)
  assert est4.global_step == 20


def test_evaluate_and_predict_every_example(straight, tmp_path):
  out, _ = straight
  est = make_estimator(out)
  results = est.evaluate(toy.make_input_fn(21, repeat=False,
                                           drop_remainder=False))
  assert sorted(results) == ["accuracy", "global_step", "loss", "mean_loss"]
  assert int(results["global_step"]) == 20
  assert 0.0 <= results["accuracy"] <= 1.0 and np.isfinite(results["loss"])
  rows = list(est.predict(toy.make_input_fn(21, repeat=False,
                                            drop_remainder=False)))
  assert [int(r["id"]) for r in rows] == list(range(21))
  assert rows[0]["probabilities"].shape == (toy.NUM_CLASSES,)
  # steps= limits the number of batches.
  limited = est.evaluate(toy.make_input_fn(), steps=2)
  assert np.isfinite(limited["loss"])
  path = tmp_path / "eval_results.txt"
  runner.write_eval_results(str(path), results)
  lines = path.read_text().splitlines()
  assert [l.split(" = ")[0] for l in lines] == sorted(results)
  assert "global_step = 20" in lines


def test_nan_loss_stops_and_sets_aside_what_led_to_it(tmp_path):
  # Examples are consumed 8 per step; id >= 100 appears in step 12.
  est = make_estimator(tmp_path, task=toy.ToyTask(nan_after=100))
  with pytest.raises(runner.NonFiniteLossError, match="NaN at global_step"):
    est.train(toy.make_input_fn(), 30)
  # Nothing saved for the bad step; the run's checkpoints (5, 10) are set
  # aside, finite, so a rerun starts afresh (issue 46 item 1).
  assert runner.latest_checkpoint(str(tmp_path)) is None
  assert not glob.glob(str(tmp_path / "model.ckpt-1[1-9]*"))
  kept = toy.checkpoint_arrays(str(tmp_path /
                                   "model.ckpt-10.nonfinite-loss"))
  assert np.all(np.isfinite(kept["toy/dense/kernel"]))


def test_output_dir_of_another_model_is_a_clear_error(straight):
  out, _ = straight
  est = make_estimator(out, task=toy.ToyTask(hidden=5))
  with pytest.raises(InputError) as e:
    est.train(toy.make_input_fn(), 25)
  message = str(e.value)
  assert "--output_dir" in message and "different model" in message
  assert "toy/" in message and "[4, 8]" in message and "[4, 5]" in message


def test_batch_size_not_divisible(tmp_path):
  with pytest.raises(InputError, match="--train_batch_size=10 is not "
                     "divisible.*gradient_accumulation_steps"):
    make_estimator(tmp_path, batch=10, gradient_accumulation_steps=4)


def test_batch_size_not_divisible_by_replicas(tmp_path):
  two_replicas = types.SimpleNamespace(num_replicas_in_sync=2)
  with pytest.raises(InputError, match=r"--train_batch_size=7 is not "
                     r"divisible by the 2 replicas \(= 2\)"):
    make_estimator(tmp_path, batch=7, strategy=two_replicas)
  cfg = runner.RunConfig(str(tmp_path), strategy=two_replicas)
  with pytest.raises(InputError, match="--predict_batch_size=3"):
    runner.Estimator(toy.ToyTask(), cfg, train_batch_size=8,
                     eval_batch_size=8, predict_batch_size=3)


def test_gradient_accumulation_equals_full_batch(tmp_path):
  full = make_estimator(tmp_path / "full", batch=8)
  full.train(toy.make_input_fn(), 6)
  acc = make_estimator(tmp_path / "acc", batch=8,
                       gradient_accumulation_steps=2)
  acc.train(toy.make_input_fn(), 6)
  a, b = weights_of(tmp_path / "full"), weights_of(tmp_path / "acc")
  for name in a:
    np.testing.assert_allclose(b[name], a[name], rtol=1e-5, atol=1e-6,
                               err_msg=name)


@pytest.mark.parametrize("precision", ["bfloat16", "float16"])
def test_mixed_precision_trains(tmp_path, precision):
  est = make_estimator(tmp_path, precision=precision)
  before = est.evaluate(toy.make_input_fn(64, repeat=False))["loss"]
  est.train(toy.make_input_fn(), 15)
  after = est.evaluate(toy.make_input_fn(64, repeat=False))["loss"]
  assert np.isfinite(after) and after < before
  names = set(weights_of(tmp_path))
  assert ("loss_scale/current_loss_scale" in names) == (
      precision == "float16")
  assert weights_of(tmp_path)["toy/dense/kernel"].dtype == np.float32
  # A run may switch precision on resume (float16 <-> the others).
  other = "float32" if precision == "float16" else "float16"
  make_estimator(tmp_path, precision=other).train(toy.make_input_fn(), 20)
  assert int(weights_of(tmp_path)["global_step"]) == 20


def test_jit_compile_same_as_without(tmp_path):
  make_estimator(tmp_path / "xla", jit_compile=True,
                 iterations_per_loop=3).train(toy.make_input_fn(), 3)
  make_estimator(tmp_path / "plain", iterations_per_loop=3).train(
      toy.make_input_fn(), 3)
  a, b = weights_of(tmp_path / "xla"), weights_of(tmp_path / "plain")
  for name in a:
    np.testing.assert_allclose(a[name], b[name], rtol=1e-4, atol=1e-5,
                               err_msg=name)


def test_flags_have_original_defaults():
  values = flags.FlagValues()
  runner.define_flags(values)
  values(["prog"])
  assert values.use_tpu is False and values.num_tpu_cores == 8
  assert values.iterations_per_loop == 1000
  assert values.save_checkpoints_steps == 1000
  assert values.tpu_name is None and values.master is None
  assert values.precision == "float32" and values.keep_checkpoint_max == 5
  assert values.gradient_accumulation_steps == 1
  assert values.optimizer == "adamw"
  flags.DEFINE_string("output_dir", "/tmp/x", "", flag_values=values)
  config = runner.run_config_from_flags(values)
  assert config.output_dir == "/tmp/x" and config.iterations_per_loop == 1000


def test_bad_strategy_and_config_values():
  with pytest.raises(InputError, match="--strategy=bogus"):
    runner.strategy_from_flags(strategy="bogus")
  old = os.environ.pop("TF_CONFIG", None)
  try:
    with pytest.raises(InputError, match="TF_CONFIG"):
      runner.strategy_from_flags(strategy="multi_worker")
  finally:
    if old is not None:
      os.environ["TF_CONFIG"] = old
  with pytest.raises(InputError, match="--precision=fp8"):
    runner.RunConfig("/tmp/x", precision="fp8")
  with pytest.raises(InputError, match="--iterations_per_loop=0"):
    runner.RunConfig("/tmp/x", iterations_per_loop=0)


def test_latest_checkpoint_ignores_incomplete_and_stale_state(tmp_path):
  import modeling  # pylint: disable=g-import-not-at-top
  values = {"a": np.ones([2], np.float32)}
  modeling.save_checkpoint(values, str(tmp_path), 10)
  # A later checkpoint whose index never got written (killed mid-write) and
  # a state file naming a checkpoint that does not exist.
  (tmp_path / "model.ckpt-30.data-00000-of-00001").write_bytes(b"partial")
  (tmp_path / "checkpoint").write_text(
      'model_checkpoint_path: "model.ckpt-20"\n')
  assert runner.latest_checkpoint(str(tmp_path)) == str(
      tmp_path / "model.ckpt-10")
  assert runner.latest_checkpoint(str(tmp_path / "missing")) is None
