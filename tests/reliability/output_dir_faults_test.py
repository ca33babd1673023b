"""--output_dir faults through the real scripts' mains (issue 29 items 2-3).

A second run on a directory in use is refused naming the holder (a real
other process holds it); a stale lock of a killed run is taken over; an
--output_dir that is a file, and a disk that fills up mid-training (an
injected ENOSPC / ResourceExhausted from the checkpoint writer) are one
`error:` line, exit status 1, and the checkpoint written before the fault
is intact. Scripts run in this process (fixtures.run_in_process: the same
`cli` guard as `python <script>.py`).
"""

import errno
import logging
import os
import signal
import subprocess
import sys

import pytest
import tensorflow as tf

from bert_tf2.runner import checkpoints
from modeling import checkpoint_writer
from tests.reliability import fixtures


def _classifier_args(inputs, out, **flags):
  values = dict(task_name="cola", do_train="true", data_dir=inputs["glue"],
                vocab_file=inputs["vocab"], bert_config_file=inputs["config"],
                output_dir=str(out), max_seq_length=16, train_batch_size=2,
                num_train_epochs=1.0, save_checkpoints_steps=1)
  values.update(flags)
  return fixtures.flag_args(**values)


def _ner_args(inputs, out):
  return fixtures.flag_args(
      data_dir=inputs["glue"], vocab_file=inputs["vocab"],
      bert_config_file=inputs["config"], output_dir=str(out),
      do_train="true", max_seq_length=8)


_HOLD = ("import sys; from bert_tf2.common import run_lock; "
         "run_lock.RunLock(sys.argv[1]).acquire(); print('held', flush=True);"
         " sys.stdin.read()")


def _holder(out):
  """A process holding the lock on `out` until its stdin is closed."""
  proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)],
                          env=fixtures.script_env(), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
  assert proc.stdout.readline() == "held\n"
  return proc


@pytest.mark.parametrize("script,make_args", [
    ("run_classifier.py", _classifier_args), ("run_ner.py", _ner_args)])
def test_output_dir_that_is_a_file(inputs, tmp_path, script, make_args):
  out = tmp_path / "a_file"
  out.write_text("keep me")
  line = fixtures.error_line(fixtures.run_in_process(
      script, make_args(inputs, out)))
  assert line == "error: --output_dir=%s: is a file, not a directory" % out
  assert out.read_text() == "keep me"


def test_second_run_is_refused_then_stale_lock_taken_over(inputs, tmp_path,
                                                          caplog):
  out = tmp_path / "out"
  holder = _holder(out)
  try:
    result = fixtures.run_in_process("run_classifier.py",
                                     _classifier_args(inputs, out))
    line = fixtures.error_line(result)
    assert ("--output_dir=%s: is in use by pid %d on " % (out, holder.pid)
            in line), line
    assert sorted(os.listdir(out)) == ["run.lock"]  # Nothing written.
  finally:
    holder.send_signal(signal.SIGKILL)  # Dies holding it: a stale lock.
    holder.communicate()
  caplog.clear()
  with caplog.at_level(logging.WARNING):
    result = fixtures.run_in_process("run_classifier.py",
                                     _classifier_args(inputs, out))
  assert result.returncode == 0, result.stderr[-3000:]
  warnings = [r.getMessage() for r in caplog.records
              if "stale lock" in r.getMessage()]
  assert len(warnings) == 1 and "pid %d " % holder.pid in warnings[0]
  assert checkpoints.latest_checkpoint(str(out)).endswith("model.ckpt-4")
  assert not (out / "run.lock").exists()  # Released at the end.


@pytest.mark.parametrize("fault", ["ENOSPC", "ResourceExhausted"])
def test_disk_full_mid_training(inputs, tmp_path, monkeypatch, fault):
  """The 3rd checkpoint save fails as on a full disk."""
  out = tmp_path / "out"
  real_write = checkpoint_writer.write_checkpoint
  saves = []

  def write(variables, prefix):
    saves.append(prefix)
    if len(saves) == 3:
      if fault == "ENOSPC":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC),
                      prefix + ".data-00000-of-00001")
      raise tf.errors.ResourceExhaustedError(
          None, None, "%s.data-00000-of-00001; No space left on device"
          % prefix)
    return real_write(variables, prefix)
  monkeypatch.setattr(checkpoint_writer, "write_checkpoint", write)
  result = fixtures.run_in_process("run_classifier.py",
                                   _classifier_args(inputs, out))
  line = fixtures.error_line(result)
  assert "No space left on device" in line, line
  assert str(out / "model.ckpt-3.data-00000-of-00001") in line, line
  # The checkpoint before the fault is complete and readable.
  assert checkpoints.latest_checkpoint(str(out)) == str(out / "model.ckpt-2")
  assert not (out / "run.lock").exists()
