"""The training progress line (step/total, rate, elapsed, ETA)."""

import re
import types

from bert_tf2 import runner
from bert_tf2.runner import estimator as estimator_lib
from bert_tf2.runner import progress
from tests.runner import toy
from tests.runner.estimator_test import make_estimator


def test_format_duration():
  assert progress.format_duration(0) == "0:00:00"
  assert progress.format_duration(59.6) == "0:01:00"
  assert progress.format_duration(3725.2) == "1:02:05"
  assert progress.format_duration(100 * 3600) == "100:00:00"
  for unknown in (None, -1.0, float("inf"), float("nan")):
    assert progress.format_duration(unknown) == "?"


def test_progress_message():
  assert progress.progress_message(120, 468, 101.2, 1.19) == (
      "step 120/468 (25.6%), 1.19 steps/s, elapsed 0:01:41, ETA 0:04:52")
  # Unknown rate: no ETA; the end: ETA 0; past the end: never negative.
  assert progress.progress_message(0, 10, 3.0, 0.0).endswith("ETA ?")
  assert progress.progress_message(10, 10, 7.0, 2.0) == (
      "step 10/10 (100.0%), 2 steps/s, elapsed 0:00:07, ETA 0:00:00")
  assert progress.progress_message(12, 10, 7.0, 2.0).endswith("ETA 0:00:00")


def test_training_logs_progress_every_loop(tmp_path, monkeypatch):
  messages = []
  monkeypatch.setattr(estimator_lib, "TRAIN_LOG_EVERY_SECS", float("inf"))
  monkeypatch.setattr(estimator_lib.logging, "info",
                      lambda fmt, *args: messages.append(fmt % args))
  est = make_estimator(tmp_path, iterations_per_loop=5,
                       log_step_count_steps=5, save_checkpoints_steps=20)
  est.train(toy.make_input_fn(), 20)
  lines = [m for m in messages if m.startswith("step ")]
  pattern = (r"step (\d+)/20 \(([\d.]+)%\), ([\d.e+-]+) steps/s, "
             r"elapsed \d+:\d\d:\d\d, ETA (\d+:\d\d:\d\d|\?), loss = \S+, "
             r"learning_rate = \S+, examples/sec = \S+$")
  matches = [re.match(pattern, l) for l in lines]
  assert all(matches), lines
  assert [int(m.group(1)) for m in matches] == [5, 10, 15, 20]
  assert [float(m.group(2)) for m in matches] == [25.0, 50.0, 75.0, 100.0]
  assert all(float(m.group(3)) > 0 for m in matches)
  assert matches[-1].group(4) == "0:00:00"


def _spy_calls(est, monkeypatch):
  """The num_steps of each call of the compiled training loop."""
  calls = []
  make = est._make_train_steps  # pylint: disable=protected-access

  def make_and_spy():
    steps = make()
    loop = steps.loop
    def spied(iterator, num_steps, stop_flag):
      calls.append(int(num_steps))
      return loop(iterator, num_steps, stop_flag)
    steps.loop = spied
    return steps
  monkeypatch.setattr(est, "_make_train_steps", make_and_spy)
  return calls


def test_slow_steps_log_within_a_loop_whatever_its_size(tmp_path,
                                                        monkeypatch):
  """Issue 46: with --iterations_per_loop=1000 a 25-step run printed no
  line until its end (3 minutes of BERT-base on CPU). A call now runs no
  longer than about TRAIN_LOG_EVERY_SECS at the last call's speed, and a
  line comes every TRAIN_LOG_EVERY_SECS: with 0 s (every step slower than
  that) each step is its own call and line."""
  messages = []
  monkeypatch.setattr(estimator_lib, "TRAIN_LOG_EVERY_SECS", 0.0)
  monkeypatch.setattr(estimator_lib.logging, "info",
                      lambda fmt, *args: messages.append(fmt % args))
  est = make_estimator(tmp_path, iterations_per_loop=1000,
                       log_step_count_steps=100, save_checkpoints_steps=1000)
  calls = _spy_calls(est, monkeypatch)
  est.train(toy.make_input_fn(), 6)
  assert calls == [1] * 6
  steps = [int(m.split()[1].split("/")[0]) for m in messages
           if m.startswith("step ")]
  assert steps == [1, 2, 3, 4, 5, 6]


def test_fast_steps_keep_the_loop_size(tmp_path, monkeypatch):
  """Steps far faster than TRAIN_LOG_EVERY_SECS: after the first call (one
  step, with the tracing) calls are --iterations_per_loop long, aligned to
  its multiples (and cut at a save step)."""
  monkeypatch.setattr(estimator_lib, "TRAIN_LOG_EVERY_SECS", 1e9)
  est = make_estimator(tmp_path, iterations_per_loop=4,
                       save_checkpoints_steps=10)
  calls = _spy_calls(est, monkeypatch)
  est.train(toy.make_input_fn(), 14)
  assert calls == [1, 3, 4, 2, 2, 2]


def test_scripts_log_at_least_every_loop():
  f = types.SimpleNamespace(
      output_dir="/tmp/x", save_checkpoints_steps=1000, keep_checkpoint_max=5,
      precision="float32", jit_compile=False, gradient_accumulation_steps=1,
      skip_consumed_batches=False, iterations_per_loop=5,
      allow_new_batch_shape=False)
  assert runner.run_config_from_flags(f).log_step_count_steps == 5
  f.iterations_per_loop = 1000
  assert runner.run_config_from_flags(f).log_step_count_steps == 100


def test_evaluation_logs_batches_done(tmp_path, monkeypatch):
  messages = []
  monkeypatch.setattr(estimator_lib, "EVAL_LOG_EVERY_SECS", 0.0)
  monkeypatch.setattr(estimator_lib.logging, "info",
                      lambda fmt, *args: messages.append(fmt % args))
  est = make_estimator(tmp_path)
  est.train(toy.make_input_fn(), 5)
  # 21 examples, eval batch 8: 3 batches; then 2 with steps=2.
  est.evaluate(toy.make_input_fn(21, repeat=False, drop_remainder=False))
  est.evaluate(toy.make_input_fn(), steps=2)
  lines = [m for m in messages if m.startswith("evaluation: ")]
  assert [l.split(", elapsed ")[0] for l in lines] == [
      "evaluation: 1 batches", "evaluation: 2 batches",
      "evaluation: 3 batches", "evaluation: 1 batches/2",
      "evaluation: 2 batches/2"]
  assert all(re.search(r", elapsed \d+:\d\d:\d\d$", l) for l in lines)
