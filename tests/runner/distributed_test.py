"""Several replicas give the single-device result for the same global batch.

MirroredStrategy on 2 logical CPU devices, and MultiWorkerMirroredStrategy
with 2 worker processes on localhost, each compared with an in-process
single-device run (global batch 8, same data order).
"""

import json
import os
import signal
import subprocess
import threading

import numpy as np
import pytest

from bert_tf2 import runner
from bert_tf2.common import launch_local
from tests.runner import conftest
from tests.runner import estimator_test
from tests.reliability import fixtures
from tests.runner import toy

STEPS = 20


@pytest.fixture(scope="module")
def single(tmp_path_factory):
  out = tmp_path_factory.mktemp("single")
  est = estimator_test.make_estimator(out, save_checkpoints_steps=10,
                                      iterations_per_loop=10)
  est.train(toy.make_input_fn(), STEPS)
  result = {k.replace("/", "|"): v for k, v in toy.checkpoint_arrays(
      runner.latest_checkpoint(str(out))).items()}
  evaluation = est.evaluate(toy.make_input_fn(50, repeat=False,
                                              drop_remainder=False))
  result.update({"eval:" + k: v for k, v in evaluation.items()})
  rows = list(est.predict(toy.make_input_fn(21, repeat=False,
                                            drop_remainder=False)))
  result["predict:ids"] = np.array([r["id"] for r in rows])
  result["predict:probabilities"] = np.stack(
      [r["probabilities"] for r in rows])
  return result


def _compare(ours, reference, prefixes=("toy", "global_step")):
  names = [k for k in reference if k.startswith(prefixes)]
  assert names
  for name in names:
    np.testing.assert_allclose(ours[name], reference[name], rtol=2e-5,
                               atol=2e-6, err_msg=name)


def _compare_eval_and_predict(ours, reference):
  """Same evaluation numbers, and every prediction row once, in order."""
  for key in ("eval:loss", "eval:accuracy", "eval:mean_loss"):
    np.testing.assert_allclose(ours[key], reference[key], rtol=1e-5,
                               err_msg=key)
  np.testing.assert_array_equal(ours["predict:ids"], np.arange(21))
  np.testing.assert_allclose(ours["predict:probabilities"],
                             reference["predict:probabilities"], rtol=1e-5,
                             atol=1e-6)


@pytest.mark.slow
def test_mirrored_two_cpus_equals_one_device(single, tmp_path, run_train):
  result = str(tmp_path / "mirrored.npz")
  run_train(output_dir=tmp_path / "out", max_steps=STEPS, strategy="mirrored",
            logical_cpus=2, save_checkpoints_steps=10, iterations_per_loop=10,
            result=result, eval=True)
  ours = dict(np.load(result))
  _compare(ours, single)
  # Evaluation and prediction split batches over the 2 replicas, including
  # the final partial batch (50 and 21 examples, batch 8): same numbers,
  # every example exactly once, in order.
  _compare_eval_and_predict(ours, single)


def _start_workers(tmp_path, out, extra_flags=None):
  procs = []
  for tf_config in launch_local.tf_configs(2):
    flags = dict(output_dir=out, max_steps=STEPS, strategy="multi_worker",
                 save_checkpoints_steps=10, iterations_per_loop=10)
    flags.update(extra_flags or {})
    if tf_config["task"]["index"] == 0:
      flags["result"] = tmp_path / "chief.npz"
    procs.append(subprocess.Popen(
        conftest.train_command(**flags), cwd=conftest.REPO,
        env=conftest.subprocess_env({"TF_CONFIG": json.dumps(tf_config)}),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
  return procs


def _finish(procs, timeout=240):
  return fixtures.finish(procs, timeout)


@pytest.mark.slow
def test_two_workers_preempted_then_restarted_equal_one_device(single,
                                                               tmp_path):
  """2 localhost workers; SIGTERM to worker 1 stops BOTH at the same step,
  the chief saves it; restarting both resumes and ends on the weights of a
  one-device run. Then evaluation and prediction in the 2-worker job see
  every example once: each worker returns the numbers (and all rows, in
  order) of one device, not those of its own shard (50 and 21 examples,
  global batch 8)."""
  out = tmp_path / "out"
  procs = _start_workers(tmp_path, out, {
      "slow_ms": 40, "iterations_per_loop": STEPS,
      "save_checkpoints_steps": 1000})
  lines = []
  # Workers that hang before batch 10 are killed (the pipe then ends), so
  # the test fails instead of waiting forever.
  watchdogs = [threading.Timer(240, p.kill) for p in procs]
  for watchdog in watchdogs:
    watchdog.start()
  try:
    for line in procs[1].stderr:
      lines.append(line)
      if "SLOW_BATCH 10\n" in line:
        break
  finally:
    for watchdog in watchdogs:
      watchdog.cancel()
  assert lines and "SLOW_BATCH 10\n" in lines[-1], (
      "worker 1 never reached batch 10:\n" + "".join(lines[-20:]))
  procs[1].send_signal(signal.SIGTERM)
  codes, errors = _finish(procs)
  assert codes == [143, 143], "".join(lines[-20:]) + errors[0][-3000:]
  step = runner.checkpoints.checkpoint_step(runner.latest_checkpoint(
      str(out)))
  assert 0 < step < STEPS
  codes, errors = _finish(_start_workers(tmp_path, out, {"eval": True}))
  assert codes == [0, 0], errors[0][-3000:] + errors[1][-3000:]
  ours = dict(np.load(tmp_path / "chief.npz"))
  _compare(ours, single)
  # Only the chief (worker 0) wrote checkpoints.
  assert os.path.basename(runner.latest_checkpoint(str(out))) == (
      "model.ckpt-%d" % STEPS)
  _compare_eval_and_predict(ours, single)
