"""One run per output directory (issue 29 item 2): bert_tf2.common.run_lock."""

import json
import logging
import os
import socket
import subprocess
import sys

import pytest

from bert_tf2.common import InputError
from bert_tf2.common import run_lock


def _dead_pid():
  """The pid of a process that has exited (and been reaped)."""
  proc = subprocess.Popen([sys.executable, "-c", "pass"])
  proc.wait()
  return proc.pid


def _worker(index, chief=False):
  cluster = {"worker": ["a:1", "b:2", "c:3"]}
  if chief:
    cluster["chief"] = ["z:0"]
  return json.dumps({"cluster": cluster,
                     "task": {"type": "worker", "index": index}})


def test_second_run_is_refused_naming_the_holder(tmp_path):
  out = str(tmp_path / "out")
  with run_lock.RunLock(out, tf_config=""):
    holder = json.load(open(os.path.join(out, "run.lock")))
    assert holder["pid"] == os.getpid()
    assert holder["host"] == socket.gethostname()
    assert holder["started"]
    with pytest.raises(InputError) as e:
      run_lock.RunLock(out, tf_config="").acquire()
    assert str(e.value).startswith("--output_dir=%s: is in use by pid %d on "
                                   "%s" % (out, os.getpid(),
                                           socket.gethostname()))
  # Released, and the directory it created (nothing else in it) is gone.
  assert not os.path.exists(out)
  with run_lock.RunLock(out, tf_config=""):
    pass


def test_release_keeps_outputs(tmp_path):
  out = tmp_path / "out"
  with run_lock.RunLock(str(out), tf_config=""):
    (out / "model.ckpt-1.index").write_bytes(b"x")
  assert sorted(os.listdir(out)) == ["model.ckpt-1.index"]


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path, caplog):
  out = tmp_path / "out"
  out.mkdir()
  stale = {"pid": _dead_pid(), "host": socket.gethostname(),
           "started": "2026-01-01T00:00:00", "command": "run_classifier.py"}
  (out / "run.lock").write_text(json.dumps(stale))
  with caplog.at_level(logging.WARNING):
    with run_lock.RunLock(str(out), tf_config=""):
      assert json.load(open(out / "run.lock"))["pid"] == os.getpid()
  assert any("stale lock" in r.getMessage() and str(stale["pid"]) in
             r.getMessage() for r in caplog.records)
  assert not (out / "run.lock").exists()


def test_lock_of_another_host_is_respected(tmp_path):
  out = tmp_path / "out"
  out.mkdir()
  (out / "run.lock").write_text(json.dumps(
      {"pid": _dead_pid(), "host": "some-other-host"}))
  with pytest.raises(InputError, match="in use by pid .* on some-other-host"):
    run_lock.RunLock(str(out), tf_config="").acquire()
  assert (out / "run.lock").exists()


def test_reused_pid_counts_as_dead(tmp_path):
  """Our own pid with another start time: the holder is gone."""
  out = tmp_path / "out"
  out.mkdir()
  ticks = run_lock._start_ticks(os.getpid())  # pylint: disable=protected-access
  assert ticks is not None
  (out / "run.lock").write_text(json.dumps(
      {"pid": os.getpid(), "host": socket.gethostname(),
       "start_ticks": ticks + 1}))
  with run_lock.RunLock(str(out), tf_config=""):
    pass


@pytest.mark.parametrize("tf_config,suffix", [
    ("", ""), ("not json", ""), (_worker(0), ""), (_worker(1), ".worker-1"),
    (_worker(0, chief=True), ".worker-0"),
    (json.dumps({"cluster": {}, "task": {"type": "chief", "index": 0}}), ""),
])
def test_task_suffix(tf_config, suffix):
  assert run_lock.task_suffix(tf_config) == suffix


def test_workers_of_one_job_share_a_directory_but_not_a_task(tmp_path):
  out = str(tmp_path / "out")
  with run_lock.RunLock(out, tf_config=_worker(0)), \
      run_lock.RunLock(out, tf_config=_worker(1)):
    assert sorted(os.listdir(out)) == ["run.lock", "run.lock.worker-1"]
    # A second job's worker 1 (or a single run: the chief's lock) collides.
    with pytest.raises(InputError, match="run.lock.worker-1 is the lock"):
      run_lock.RunLock(out, tf_config=_worker(1)).acquire()
    with pytest.raises(InputError, match="is in use"):
      run_lock.RunLock(out, tf_config="").acquire()


def test_output_dir_that_is_a_file(tmp_path):
  path = tmp_path / "file"
  path.write_text("x")
  with pytest.raises(InputError, match=r"^--output_dir=.*file: is a file, "
                     r"not a directory$"):
    run_lock.RunLock(str(path), tf_config="").acquire()
  assert path.read_text() == "x"


def test_directory_that_cannot_be_created(tmp_path):
  """A parent that is a file (root may write anywhere, so no chmod test)."""
  (tmp_path / "file").write_text("x")
  with pytest.raises(InputError, match="cannot create the directory: "
                     "Not a directory"):
    run_lock.RunLock(str(tmp_path / "file" / "out"), tf_config="").acquire()


def test_read_only_file_system(tmp_path, monkeypatch):
  """EROFS when creating the lock (root ignores chmod, so it is injected)."""
  import errno  # pylint: disable=g-import-not-at-top
  def refuse(path, *args):
    raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
  monkeypatch.setattr(run_lock.os, "open", refuse)
  with pytest.raises(InputError, match=r"^--output_dir=%s: cannot write "
                     r"run.lock: Read-only file system$" % tmp_path):
    run_lock.RunLock(str(tmp_path), tf_config="").acquire()


def _lock_bytes(kind):
  """A run.lock left empty, cut short, or overwritten with random bytes."""
  whole = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                      "started": "2026-01-01T00:00:00"}).encode()
  return {"empty": b"", "truncated": whole[:len(whole) // 2],
          "random": bytes(range(256))[::7] * 3}[kind]


_DAMAGED = ("empty", "truncated", "random")


@pytest.mark.parametrize("kind", _DAMAGED)
def test_damaged_old_lock_is_taken_over_with_one_warning(tmp_path, caplog,
                                                         kind):
  """A full disk at start used to leave a 0-byte run.lock that refused
  every later run as "in use by another run", for good."""
  out = tmp_path / "out"
  out.mkdir()
  lock = out / "run.lock"
  lock.write_bytes(_lock_bytes(kind))
  old = lock.stat().st_mtime - run_lock.DAMAGED_LOCK_GRACE_SECS - 1
  os.utime(lock, (old, old))
  with caplog.at_level(logging.WARNING):
    with run_lock.RunLock(str(out), tf_config=""):
      assert json.loads(lock.read_text())["pid"] == os.getpid()
  warnings = [r.getMessage() for r in caplog.records
              if r.levelno >= logging.WARNING]
  assert len(warnings) == 1 and "damaged lock" in warnings[0], warnings
  assert not lock.exists()


@pytest.mark.parametrize("kind", _DAMAGED)
def test_damaged_fresh_lock_is_respected(tmp_path, kind):
  """A lock written this instant may be another run's being written."""
  out = tmp_path / "out"
  out.mkdir()
  (out / "run.lock").write_bytes(_lock_bytes(kind))
  with pytest.raises(InputError, match="is in use by another run"):
    run_lock.RunLock(str(out), tf_config="").acquire()


def test_full_disk_at_start_leaves_no_lock(tmp_path, monkeypatch):
  """ENOSPC while writing the holder: one error, no run.lock left behind,
  and the next run takes the directory."""
  import errno  # pylint: disable=g-import-not-at-top
  out = tmp_path / "out"
  out.mkdir()
  real_fdopen = os.fdopen
  class FullDisk(object):
    def __init__(self, fd, mode):
      self._f = real_fdopen(fd, mode)
    def __enter__(self):
      return self
    def write(self, text):
      raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    def __exit__(self, *exc):
      self._f.close()
  monkeypatch.setattr(run_lock.os, "fdopen", FullDisk)
  with pytest.raises(InputError, match="cannot write run.lock: No space"):
    run_lock.RunLock(str(out), tf_config="").acquire()
  monkeypatch.undo()
  assert os.listdir(out) == []
  with run_lock.RunLock(str(out), tf_config=""):
    pass
