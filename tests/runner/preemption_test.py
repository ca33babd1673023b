"""Faults during training: SIGTERM/SIGINT and kill -9, then exact resume.

The reference is an uninterrupted in-process run. Interrupted runs use the
same toy task, optimizer and data order (skip_consumed_batches), so a
correct resume reproduces the reference weights and optimizer slots.
SIGTERM and kill -9 hit a real subprocess (tests.runner.train_main).
"""

import os
import signal
import subprocess
import threading

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import runner
from bert_tf2.runner import preemption
from tests.runner import conftest
from tests.runner import estimator_test
from tests.runner import toy

MAX_STEPS = 60


def make(out, **config):
  config.setdefault("save_checkpoints_steps", 10)
  config.setdefault("iterations_per_loop", 10)
  return estimator_test.make_estimator(out, **config)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
  out = tmp_path_factory.mktemp("reference")
  make(out).train(toy.make_input_fn(), MAX_STEPS)
  return toy.checkpoint_arrays(runner.latest_checkpoint(str(out)))


def _assert_same(out, reference):
  ours = toy.checkpoint_arrays(runner.latest_checkpoint(str(out)))
  assert set(ours) == set(reference)
  for name in reference:
    np.testing.assert_allclose(ours[name], reference[name], rtol=1e-6,
                               atol=1e-7, err_msg=name)


def _start(env=None, **flags):
  return subprocess.Popen(
      conftest.train_command(**flags), cwd=conftest.REPO,
      env=conftest.subprocess_env(env), stderr=subprocess.PIPE,
      stdout=subprocess.DEVNULL, text=True)


class _Lines(list):
  reader = None


def _wait_for(proc, marker, timeout=150):
  """Collects proc's stderr lines; waits until one contains marker.

  Returns the list the reader thread keeps appending to; its `reader`
  attribute is the thread (join it after proc exits: it ends at EOF).
  """
  lines = _Lines()
  found = threading.Event()

  def reader():
    for line in proc.stderr:
      lines.append(line)
      if marker in line:
        found.set()
    found.set()
  lines.reader = threading.Thread(target=reader, daemon=True)
  lines.reader.start()
  assert found.wait(timeout), "no %r from the child" % marker
  assert any(marker in l for l in lines), "".join(lines[-30:])
  return lines


@pytest.mark.slow
def test_sigterm_saves_current_step_exits_and_resume_is_exact(
    reference, tmp_path):
  out = str(tmp_path)
  # One loop of MAX_STEPS steps at 40 ms per batch: the signal lands
  # mid-loop, after the 10th batch was produced (at most a few
  # are prefetched, so training is under way).
  proc = _start(output_dir=out, max_steps=MAX_STEPS,
                iterations_per_loop=MAX_STEPS, save_checkpoints_steps=1000,
                slow_ms=40)
  try:
    lines = _wait_for(proc, "SLOW_BATCH 10\n")
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=120)
  finally:
    if proc.poll() is None:
      proc.kill()
  lines.reader.join(60)  # It ends at the child's EOF: every line is in.
  assert not lines.reader.is_alive(), "stderr still open"
  log = "".join(lines)
  assert rc == 128 + signal.SIGTERM, log[-3000:]
  assert "Traceback" not in log
  assert "Received SIGTERM" in log
  step = runner.checkpoints.checkpoint_step(runner.latest_checkpoint(out))
  assert 0 < step < MAX_STEPS, "checkpoint at step %s" % step
  saved = toy.checkpoint_arrays(runner.latest_checkpoint(out))
  assert int(saved["global_step"]) == step
  make(out).train(toy.make_input_fn(), MAX_STEPS)
  _assert_same(out, reference)


def test_sigint_in_process_stops_mid_loop(reference, tmp_path, monkeypatch):
  """Ctrl-C: TrainingInterrupted (exit status 130) after saving."""
  plain = toy.make_input_fn()
  # The input pipeline sends the signal, then waits until the estimator's
  # watcher thread has raised the stop flag: a toy step takes microseconds,
  # and on a loaded machine the loop could otherwise run all MAX_STEPS
  # before that thread is scheduled.
  stop_requested = threading.Event()
  request_stop = preemption.SignalWatcher._request_stop  # pylint: disable=protected-access

  def request_stop_and_tell(self, signum):
    request_stop(self, signum)
    stop_requested.set()
  monkeypatch.setattr(preemption.SignalWatcher, "_request_stop",
                      request_stop_and_tell)

  def input_fn(params):
    def maybe_interrupt(i, x):
      if int(i) == 7 * params["batch_size"]:  # The 8th batch.
        os.kill(os.getpid(), signal.SIGINT)
        assert stop_requested.wait(120), "the stop flag was never raised"
      return x
    def with_signal(f):
      x = tf.py_function(maybe_interrupt, [f["id"][0], f["x"]], tf.float32)
      return dict(f, x=tf.ensure_shape(x, f["x"].shape))
    return plain(params).map(with_signal)

  est = make(tmp_path, iterations_per_loop=MAX_STEPS,
             save_checkpoints_steps=1000)
  previous = signal.getsignal(signal.SIGINT)
  with pytest.raises(runner.TrainingInterrupted) as e:
    est.train(input_fn, MAX_STEPS)
  assert e.value.code == 128 + signal.SIGINT
  assert 0 < e.value.step < MAX_STEPS
  assert e.value.checkpoint == runner.latest_checkpoint(str(tmp_path))
  assert signal.getsignal(signal.SIGINT) is previous  # Handler restored.
  make(tmp_path).train(toy.make_input_fn(), MAX_STEPS)
  _assert_same(tmp_path, reference)


@pytest.mark.slow
def test_kill_9_while_writing_checkpoint_resumes_from_last_complete(
    reference, tmp_path):
  out = str(tmp_path)
  make(out).train(toy.make_input_fn(), 20)
  # The checkpoint writer pauses after renaming the data file, before the
  # index (a test hook of modeling's writer); we kill -9 it there.
  proc = _start(env={"BERT_CHECKPOINT_FAULT_POINT": "data_renamed"},
                output_dir=out, max_steps=MAX_STEPS, iterations_per_loop=10,
                save_checkpoints_steps=10)
  try:
    _wait_for(proc, "FAULT_POINT data_renamed")
  finally:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
  assert os.path.exists(os.path.join(out, "model.ckpt-30.data-00000-of-00001"))
  assert not os.path.exists(os.path.join(out, "model.ckpt-30.index"))
  assert runner.latest_checkpoint(out).endswith("model.ckpt-20")
  make(out).train(toy.make_input_fn(), MAX_STEPS)
  _assert_same(out, reference)
