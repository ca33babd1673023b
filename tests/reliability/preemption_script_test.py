"""SIGTERM (preemption) to the real run_pretraining.py, then resume.

The runner's own tests (tests/runner/preemption_test.py) prove exact resume
on a toy task; this one checks the whole script: the signal ends it with
status 143 and no traceback, the checkpoint of the step it stopped at is
complete (weights, Adam slots, global_step), and a rerun of the same
command line continues from that step instead of starting over.
"""

import os
import signal
import subprocess
import time

import numpy as np
import tensorflow as tf

from tests import warm_python
from tests.golden import REPO_ROOT
from tests.reliability import fixtures


def _command(p, out, steps):
  flags = dict(input_file=p["records"], bert_config_file=p["config"],
               output_dir=out, do_train="true", max_seq_length=fixtures.SEQ,
               max_predictions_per_seq=fixtures.MAX_PRED, train_batch_size=2,
               num_train_steps=steps, num_warmup_steps=2,
               save_checkpoints_steps=3, iterations_per_loop=1000,
               learning_rate=1e-3, keep_checkpoint_max=2)
  return [warm_python.command(),
          os.path.join(REPO_ROOT, "run_pretraining.py")
         ] + fixtures.flag_args(**flags)


def _checkpoint_steps(out):
  return sorted(int(n[len("model.ckpt-"):-len(".index")])
                for n in os.listdir(out)
                if n.startswith("model.ckpt-") and n.endswith(".index")
                and ".tmp-" not in n)


def test_sigterm_saves_exits_143_and_rerun_resumes(inputs, tmp_path):
  out = str(tmp_path / "out")
  proc = subprocess.Popen(_command(inputs, out, 100000), cwd=REPO_ROOT,
                          env=fixtures.script_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
  try:
    deadline = time.time() + 240
    # Training is under way once the first periodic checkpoint exists.
    while not (os.path.isdir(out) and _checkpoint_steps(out)):
      assert proc.poll() is None, proc.communicate()[1][-3000:]
      assert time.time() < deadline, "no checkpoint written"
      time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
  finally:
    if proc.poll() is None:
      proc.kill()
  assert proc.returncode == 128 + signal.SIGTERM, err[-3000:]
  assert "Traceback" not in err
  steps = _checkpoint_steps(out)
  assert len(steps) <= 2  # --keep_checkpoint_max=2
  stopped = steps[-1]
  assert 3 <= stopped < 100000
  latest = tf.train.latest_checkpoint(out)
  assert latest.endswith("model.ckpt-%d" % stopped)
  reader = tf.train.load_checkpoint(latest)
  assert int(reader.get_tensor("global_step")) == stopped
  names = reader.get_variable_to_shape_map()
  name = "bert/embeddings/word_embeddings"
  assert name + "/adam_m" in names and name + "/adam_v" in names
  assert np.any(reader.get_tensor(name + "/adam_v") > 0)
  saved = reader.get_tensor(name)

  # The same command line with two more steps resumes at `stopped`.
  result = subprocess.run(_command(inputs, out, stopped + 2), cwd=REPO_ROOT,
                          env=fixtures.script_env(), capture_output=True,
                          text=True, timeout=300, check=False)
  assert result.returncode == 0, result.stderr[-3000:]
  latest = tf.train.latest_checkpoint(out)
  assert latest.endswith("model.ckpt-%d" % (stopped + 2))
  reader = tf.train.load_checkpoint(latest)
  assert int(reader.get_tensor("global_step")) == stopped + 2
  assert not np.array_equal(reader.get_tensor(name), saved)
