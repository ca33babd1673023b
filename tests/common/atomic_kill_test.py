"""kill -9 in the middle of each atomic writer: the previous output survives.

A child process writes through the writer and stops half-way (it prints
READY and blocks reading stdin); the test kills it with SIGKILL and checks
that the final path still holds the previous, complete output. Checkpoints
and TFRecords have their own kill tests
(modeling/checkpoint_test.py::test_kill_9_mid_write_never_leaves_a_fake_complete_checkpoint,
pretraining_data/cli_test.py::test_kill_9_mid_write_leaves_no_output).
"""

import os
import signal
import subprocess
import sys

import pytest
import tensorflow as tf

from bert_tf2.common import saved_model
from tokenization import atomic

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# argv: kind, path. Each kind stops in the middle of its write.
_CHILD = r"""
import sys
kind, path = sys.argv[1:3]

def stop_here():
  print("READY", flush=True)
  sys.stdin.read()  # Blocks until killed.

if kind == "atomic_open":
  from tokenization import atomic
  with atomic.atomic_open(path) as f:
    f.write("new, half")
    f.flush()
    stop_here()
    f.write(" and the rest")
elif kind == "atomic_write_text":
  from tokenization import atomic  # Where the writer (and its replace) live.
  replace = atomic.replace
  def stopping_replace(src, dst):  # Written, flushed, not yet renamed.
    stop_here()
    replace(src, dst)
  atomic.replace = stopping_replace
  atomic.atomic_write_text(path, "new text")
else:  # saved_model_save or saved_model_swap
  import tensorflow as tf
  from bert_tf2.common import saved_model
  module = tf.Module()
  module.v = tf.Variable(2.0)
  module.f = tf.function(lambda: {"v": module.v.read_value()},
                         input_signature=[])
  if kind == "saved_model_save":  # Half the files written.
    save = tf.saved_model.save
    def stopping_save(obj, export_dir, signatures=None):
      save(obj, export_dir, signatures=signatures)
      stop_here()
    tf.saved_model.save = stopping_save
  else:  # The old export moved aside, the new one not yet renamed in.
    rename = tf.io.gfile.rename
    def stopping_rename(src, dst, overwrite=False):
      rename(src, dst, overwrite)
      if dst.endswith(".old-export"):
        stop_here()
    tf.io.gfile.rename = stopping_rename
  saved_model.save_atomically(module, path, {"serving_default": module.f})
"""


def _kill_mid_write(kind, path):
  env = dict(os.environ, PYTHONPATH=REPO)
  proc = subprocess.Popen([sys.executable, "-c", _CHILD, kind, str(path)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env,
                          cwd=REPO)
  try:
    line = proc.stdout.readline()  # Blocks until the child is mid-write.
    assert line == "READY\n", proc.communicate()[1][-3000:]
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
  finally:
    if proc.poll() is None:
      proc.kill()
      proc.wait()


@pytest.mark.parametrize("kind", ["atomic_open", "atomic_write_text"])
def test_kill_mid_file_write_keeps_the_previous_file(tmp_path, kind):
  path = tmp_path / "eval_results.txt"
  atomic.atomic_write_text(str(path), "previous\n")
  _kill_mid_write(kind, path)
  assert path.read_text() == "previous\n"
  # What is left over is a temporary name, never the output's.
  leftovers = sorted(os.listdir(tmp_path))
  assert leftovers[0] == "eval_results.txt"
  assert all(".tmp-" in name for name in leftovers[1:]), leftovers


def _saved_value(export_dir):
  return float(tf.saved_model.load(str(export_dir)).signatures[
      "serving_default"]()["v"])


def _first_export(export_dir):
  module = tf.Module()
  module.v = tf.Variable(1.0)
  module.f = tf.function(lambda: {"v": module.v.read_value()},
                         input_signature=[])
  saved_model.save_atomically(module, str(export_dir),
                                {"serving_default": module.f})
  assert _saved_value(export_dir) == 1.0


@pytest.mark.slow
def test_kill_mid_saved_model_write_keeps_the_previous_export(tmp_path):
  export_dir = tmp_path / "export"
  _first_export(export_dir)
  _kill_mid_write("saved_model_save", export_dir)
  assert _saved_value(export_dir) == 1.0
  _kill_mid_write("saved_model_swap", export_dir)
  # Between the two renames the previous export is complete beside it.
  assert not export_dir.exists()
  assert _saved_value(str(export_dir) + ".old-export") == 1.0
