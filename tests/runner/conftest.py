"""Helpers for runner tests: run tests.runner.train_main in a subprocess."""

import os
import subprocess

import pytest

from tests import warm_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def subprocess_env(extra=None):
  env = dict(os.environ)
  env.update({"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "",
              "PYTHONPATH": REPO + os.pathsep + env.get("PYTHONPATH", "")})
  env.pop("TF_CONFIG", None)
  env.update(extra or {})
  return env


def train_command(**flags):
  """`python -m tests.runner.train_main --flags`, with tests/warm_python.py's
  `python` (TensorFlow imported before the fork; signals forwarded)."""
  cmd = [warm_python.command(), "-m", "tests.runner.train_main"]
  for key, value in flags.items():
    if value is True:
      cmd.append("--" + key)
    else:
      cmd.append("--%s=%s" % (key, value))
  return cmd


@pytest.fixture
def run_train():
  """Runs train_main to completion; returns the CompletedProcess."""
  def run(env=None, timeout=240, **flags):
    proc = subprocess.run(train_command(**flags), cwd=REPO,
                          env=subprocess_env(env), capture_output=True,
                          text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
      raise AssertionError("train_main failed (%d):\n%s" % (
          proc.returncode, proc.stderr[-4000:]))
    return proc
  return run
