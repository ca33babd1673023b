"""Finite checkpoints only (issue 38 item 1).

A run whose weights turn NaN never saves them; every checkpoint that run
continued from (resumed from, or saved) is set aside (issue 46); a
non-finite checkpoint is skipped on resume and refused for evaluation, as
is a NaN --init_checkpoint. (Before: `--learning_rate=1e3` saved
model.ckpt-10 with NaN in 138 of 139 variables and called it "the last good
checkpoint"; every rerun failed the same way.)
"""

import logging
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import runner
from bert_tf2.common import InputError
import modeling
from tests.runner import toy
from tests.runner.estimator_test import make_estimator


def _listing(directory):
  return sorted(n for n in os.listdir(directory) if n.startswith("model."))


def _poison(prefix, name="toy/dense/kernel"):
  """Rewrites checkpoint `prefix` with NaN in variable `name`."""
  values = toy.checkpoint_arrays(prefix)
  values[name] = np.full_like(values[name], np.nan)
  modeling.write_checkpoint(values, prefix)


@pytest.fixture(scope="module")
def ten(tmp_path_factory):
  """Checkpoints at steps 5 and 10 of a healthy run."""
  out = tmp_path_factory.mktemp("ten")
  make_estimator(out).train(toy.make_input_fn(), 10)
  return out


def test_weights_turning_nan_are_never_saved(tmp_path):
  # Step 10 reads ids 72..79: its loss is finite, its update makes every
  # weight NaN, and step 10 is a save point.
  est = make_estimator(tmp_path, task=toy.ToyTask(nan_gradient_at=75))
  with pytest.raises(runner.NonFiniteLossError) as e:
    est.train(toy.make_input_fn(), 20)
  message = str(e.value)
  assert message.startswith("The checkpoint about to be saved at "
                            "global_step 10 holds NaN or Inf in "), message
  # model.ckpt-5 led to it: set aside (kept, finite), never resumed from.
  assert ("Training continued from model.ckpt-5: set aside as "
          "model.ckpt-5.nonfinite-loss.*") in message, message
  assert "a rerun starts afresh" in message, message
  assert _listing(tmp_path) == [
      "model.ckpt-5.nonfinite-loss.data-00000-of-00001",
      "model.ckpt-5.nonfinite-loss.index"]
  values = toy.checkpoint_arrays(str(tmp_path / "model.ckpt-5.nonfinite-loss"))
  assert all(np.isfinite(v).all() for v in values.values())


def test_weights_giving_a_nan_loss_are_set_aside(tmp_path):
  """Finite weights whose loss is NaN (step 11 on model.ckpt-10's weights):
  every checkpoint of the run that led there is set aside."""
  est = make_estimator(tmp_path, task=toy.ToyTask(nan_after=80))
  with pytest.raises(runner.NonFiniteLossError) as e:
    est.train(toy.make_input_fn(), 20)
  message = str(e.value)
  assert "Loss is NaN at global_step 10" in message
  assert ("set aside as model.ckpt-5.nonfinite-loss.*, "
          "model.ckpt-10.nonfinite-loss.*") in message, message
  assert (tmp_path / "model.ckpt-10.nonfinite-loss.index").exists()
  assert runner.latest_checkpoint(str(tmp_path)) is None


def test_a_resumed_checkpoint_that_led_to_nan_is_set_aside(ten, tmp_path):
  """Issue 46 item 1: the checkpoint a run resumed from, whatever its step,
  is set aside when the run goes non-finite (only the newest checkpoint
  at exactly the bad step was: every rerun resumed from it and failed
  again). An older one, of an earlier run, stays and the rerun resumes
  from it, as the message says."""
  out = tmp_path / "out"
  shutil.copytree(ten, out)
  # Resumed at 10 (ids 80..87); step 12 reads ids 96..103: NaN, no save.
  est = make_estimator(out, task=toy.ToyTask(nan_after=96))
  with pytest.raises(runner.NonFiniteLossError) as e:
    est.train(toy.make_input_fn(), 20)
  message = str(e.value)
  assert "Loss is NaN at global_step 12" in message, message
  assert ("Training continued from model.ckpt-10: set aside as "
          "model.ckpt-10.nonfinite-loss.*") in message, message
  assert "a rerun resumes from %s" % (out / "model.ckpt-5") in message
  assert _listing(out) == [
      "model.ckpt-10.nonfinite-loss.data-00000-of-00001",
      "model.ckpt-10.nonfinite-loss.index",
      "model.ckpt-5.data-00000-of-00001", "model.ckpt-5.index"]
  # The state file lists what is left: no path that no longer exists.
  assert tf.train.latest_checkpoint(str(out)) == str(out / "model.ckpt-5")
  rerun = make_estimator(out)
  rerun.train(toy.make_input_fn(), 20)
  assert rerun.global_step == 20


def test_resume_skips_a_non_finite_newest_checkpoint(ten, tmp_path, caplog):
  out = tmp_path / "out"
  shutil.copytree(ten, out)
  _poison(str(out / "model.ckpt-10"))
  est = make_estimator(out)
  with caplog.at_level(logging.WARNING):
    assert est.latest_checkpoint() == str(out / "model.ckpt-5")
  warnings = [r.getMessage() for r in caplog.records
              if "model.ckpt-10" in r.getMessage()]
  assert len(warnings) == 1, warnings
  assert "holds NaN or Inf in 1 of " in warnings[0]
  assert "toy/dense/kernel" in warnings[0]
  est.train(toy.make_input_fn(), 15)
  assert est.global_step == 15
  values = toy.checkpoint_arrays(str(out / "model.ckpt-15"))
  assert all(np.isfinite(v).all() for v in values.values())


def test_only_non_finite_checkpoints_is_one_error(ten, tmp_path):
  out = tmp_path / "out"
  shutil.copytree(ten, out)
  for step in (5, 10):
    _poison(str(out / ("model.ckpt-%d" % step)))
  with pytest.raises(InputError, match=r"--output_dir=.*: no finite "
                     r"checkpoint \(model.ckpt-10 holds NaN or Inf"):
    runner.latest_checkpoint(str(out))


def test_evaluating_a_non_finite_checkpoint_is_refused(ten, tmp_path):
  out = tmp_path / "out"
  shutil.copytree(ten, out)
  _poison(str(out / "model.ckpt-5"))
  est = make_estimator(out)
  with pytest.raises(InputError, match=r"model.ckpt-5 holds NaN or Inf"):
    est.evaluate(toy.make_input_fn(16, repeat=False), steps=1,
                 checkpoint_path=str(out / "model.ckpt-5"))


@pytest.mark.parametrize("mode", ["train", "evaluate"])
def test_a_nan_init_checkpoint_is_refused(ten, tmp_path, mode):
  init = str(tmp_path / "init" / "bert_model.ckpt")
  values = toy.checkpoint_arrays(str(ten / "model.ckpt-10"))
  values["toy/output_bias"] = np.full_like(values["toy/output_bias"], np.inf)
  modeling.write_checkpoint(values, init)
  est = make_estimator(tmp_path / "out", init_checkpoint=init)
  with pytest.raises(InputError, match=r"^--init_checkpoint=%s: variable "
                     r"toy/output_bias holds NaN or Inf" % init):
    if mode == "train":
      est.train(toy.make_input_fn(), 5)
    else:
      est.evaluate(toy.make_input_fn(16, repeat=False), steps=1)
  assert not (tmp_path / "out").exists() or not _listing(tmp_path / "out")
