"""The golden runs' warm `python` (tests/golden/__init__.py) is the real
interpreter of the reference environment: the same Keras behind tf.keras,
the same environment, the same graph-mode switch, the same exit status."""

import subprocess
import sys

from tests.golden import REPO_ROOT
from tests.golden import reference_env
from tests.golden import reference_python

_PROGRAM = r"""
import os, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
print(tf.keras.__name__.split(".")[0], os.environ["TF_USE_LEGACY_KERAS"],
      tf.executing_eagerly(), "bert_tf2" in sys.modules, sys.argv[1:])
sys.exit(3)
"""


def _run(python):
  return subprocess.run([python, "-c", _PROGRAM, "a", "b"], cwd=REPO_ROOT,
                        env=reference_env(), capture_output=True, text=True,
                        timeout=300, check=False)


def test_reference_python_runs_programs_as_the_real_interpreter():
  warm, real = _run(reference_python()), _run(sys.executable)
  assert (warm.returncode, warm.stdout) == (real.returncode, real.stdout)
  assert real.returncode == 3
  assert real.stdout.split() == ["tf_keras", "1", "False", "False", "['a',",
                                 "'b']"]
