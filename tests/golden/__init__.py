"""Golden tests: run Google's original code in a subprocess, compare outputs.

`run_golden("tests.golden.some_script", args...)` runs that module with the
reference environment (graph mode, tf-keras, no GPU) and returns its stdout.
Golden scripts import `tests.golden.original` to get the original modules and
write their outputs (e.g. .npz files) to a path given on the command line.
"""

import os
import subprocess

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def reference_env():
  env = dict(os.environ)
  env.update({
      "TF_USE_LEGACY_KERAS": "1",
      "TF_CPP_MIN_LOG_LEVEL": "2",
      "CUDA_VISIBLE_DEVICES": "",
      "PYTHONPATH": REPO_ROOT + os.pathsep + env.get("PYTHONPATH", ""),
  })
  return env


def reference_python():
  """A `python` for the reference environment that imported TensorFlow and
  tf-keras once (tests/warm_python.py): each golden run is a fresh program
  forked from that server, without its own import of them (about 4
  CPU-seconds each)."""
  from tests import warm_python  # pylint: disable=g-import-not-at-top
  return warm_python.command("reference", ("tensorflow", "tf_keras"),
                             reference_env())


def run_golden(module, *args, timeout=600):
  """Runs `python -m module args...` as the original code's environment.

  Returns:
    The subprocess's stdout (str). Raises AssertionError with the stderr tail
    if it fails, so a broken golden run is a clear test failure.
  """
  proc = subprocess.run(
      [reference_python(), "-m", module] + [str(a) for a in args],
      cwd=REPO_ROOT, env=reference_env(), capture_output=True, text=True,
      timeout=timeout, check=False)
  if proc.returncode != 0:
    raise AssertionError("golden run %s failed (exit %d):\n%s" % (
        module, proc.returncode, proc.stderr[-4000:]))
  return proc.stdout
