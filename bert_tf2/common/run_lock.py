"""One run per output directory: a lock file naming its holder.

`RunLock` creates `output_dir/run.lock` exclusively, holding the holder's
pid, host, process start time and command; a second run on the same
directory is refused with an `InputError` naming the holder. A lock left by
a process that is gone (same host, pid dead or reused) is taken over with a
warning; so is an empty or garbage lock once it is older than
DAMAGED_LOCK_GRACE_SECS (a lock is written atomically). On release the lock
is removed, and so is output_dir if the run created it and wrote nothing.

Each task of a multi-worker job takes its own lock file, named after its
TF_CONFIG task: the chief (or worker 0 when the cluster has no chief) and
single-process runs take `run.lock`, worker 1 `run.lock.worker-1`, ...

Only local paths are locked: object stores (gs://...) offer no exclusive
create.

Example:
  >>> import tempfile
  >>> out = tempfile.mkdtemp()
  >>> with RunLock(out, flag="output_dir"):
  ...   try:
  ...     RunLock(out, flag="output_dir").acquire()
  ...   except InputError as e:
  ...     print(str(e).split(" by pid")[0] == "--output_dir=%s: is in use" % out)
  True
"""

import json
import os
import socket
import sys
import errno
import time
import uuid

from absl import logging

from tokenization.errors import InputError

LOCK_NAME = "run.lock"
# An empty or garbage lock this old is taken over: no run is writing it.
DAMAGED_LOCK_GRACE_SECS = 10.0
# errno values of a file system without hard links.
_NO_HARD_LINKS = (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV,
                  errno.EMLINK)


def task_suffix(tf_config=None):
  """"" for the chief or a single process, else ".worker-1" etc."""
  if tf_config is None:
    tf_config = os.environ.get("TF_CONFIG", "")
  try:
    config = json.loads(tf_config) if tf_config else {}
    task = config.get("task") or {}
    kind, index = str(task.get("type", "")), int(task.get("index", 0))
    cluster = config.get("cluster") or {}
  except (ValueError, TypeError, AttributeError):
    return ""  # A malformed TF_CONFIG is refused later by the strategy.
  if not kind or kind == "chief" or (
      kind == "worker" and index == 0 and "chief" not in cluster):
    return ""
  return ".%s-%d" % (kind, index)


def _start_ticks(pid):
  """The process's start time (clock ticks after boot, Linux), or None."""
  try:
    with open("/proc/%d/stat" % pid) as f:
      return int(f.read().rsplit(")", 1)[1].split()[19])
  except (OSError, ValueError, IndexError):
    return None


def _alive(holder):
  """False when `holder` (a lock's content) is a process gone from here."""
  if holder.get("host") != socket.gethostname():
    return True  # Cannot tell: another machine's process.
  pid = holder.get("pid")
  if not isinstance(pid, int) or pid <= 0:
    return False
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except PermissionError:
    return True  # Exists, belongs to someone else.
  ticks = holder.get("start_ticks")
  return ticks is None or _start_ticks(pid) in (None, ticks)  # pid reused?


def _describe(holder):
  return "pid %s on %s since %s (%s)" % (
      holder.get("pid"), holder.get("host"), holder.get("started", "?"),
      holder.get("command", "?"))


class RunLock(object):
  """Exclusive use of `directory` by this process; a context manager."""

  def __init__(self, directory, flag="output_dir", tf_config=None):
    self.directory = directory
    self.flag = flag
    self.path = os.path.join(directory, LOCK_NAME + task_suffix(tf_config))
    self._held = False
    self._created_dir = False

  def _error(self, what):
    return InputError("--%s=%s: %s" % (self.flag, self.directory, what))

  def _make_dir(self):
    if os.path.exists(self.directory) and not os.path.isdir(self.directory):
      raise self._error("is a file, not a directory")
    if not os.path.isdir(self.directory):
      try:
        os.makedirs(self.directory)
      except FileExistsError:
        pass  # Another task of the job made it meanwhile.
      except OSError as e:
        raise self._error("cannot create the directory: %s"
                          % (e.strerror or e)) from e
      else:
        self._created_dir = True

  def _create(self):
    """Creates the lock file exclusively; False if it exists.

    The holder is written to a temporary file and hard-linked to the lock's
    name, so a lock is never seen half-written (where hard links are
    refused, the file is created with O_EXCL).
    """
    holder = json.dumps({
        "pid": os.getpid(), "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "start_ticks": _start_ticks(os.getpid()),
        "command": " ".join(sys.argv)[:200]})
    tmp = "%s.tmp-%d-%s" % (self.path, os.getpid(), uuid.uuid4().hex[:8])
    try:
      try:
        self._write_new(tmp, holder)
        os.link(tmp, self.path)
        return True
      except FileExistsError:
        return False
      except OSError as e:
        if e.errno not in _NO_HARD_LINKS:
          raise
      try:
        self._write_new(self.path, holder)
      except FileExistsError:
        return False
      return True
    except OSError as e:
      raise self._error("cannot write %s: %s" % (
          os.path.basename(self.path), e.strerror or e)) from e
    finally:
      try:
        os.remove(tmp)
      except OSError:
        pass

  @staticmethod
  def _write_new(path, text):
    """Creates `path` (O_EXCL) holding `text`; removes it if writing fails."""
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    try:
      with os.fdopen(fd, "w") as f:
        f.write(text)
    except OSError:
      os.remove(path)  # A full disk: leave no empty file behind.
      raise

  def _holder(self):
    """The lock's holder: a dict, None if there is no lock, or a one-line
    description (str) of a lock that is empty, cut short or garbage."""
    try:
      with open(self.path, "rb") as f:
        data = f.read()
    except FileNotFoundError:
      return None
    except OSError as e:
      return "unreadable (%s)" % (e.strerror or e)
    try:
      holder = json.loads(data.decode("utf-8"))
    except ValueError:
      holder = None
    if isinstance(holder, dict):
      return holder
    return "empty" if not data else "not a lock written by a run (%d bytes)" % (
        len(data))

  def _stale_damaged(self):
    """True if a damaged lock is old enough that no run is writing it."""
    try:
      age = time.time() - os.stat(self.path).st_mtime
    except OSError:
      return False
    return age >= DAMAGED_LOCK_GRACE_SECS

  def acquire(self):
    """Takes the lock, or raises InputError naming the holder."""
    if "://" in self.directory:
      logging.info("%s: not locked (not a local path)", self.directory)
      return self
    self._make_dir()
    for _ in range(3):
      if self._create():
        self._held = True
        return self
      holder = self._holder()
      if holder is None:
        continue  # Released meanwhile: try again.
      if isinstance(holder, str):  # Empty or garbage: no owner to ask.
        if not self._stale_damaged():
          holder = {}
        else:
          logging.warning("Taking over the damaged lock %s (%s; left by a "
                          "run that could not finish writing it, e.g. on a "
                          "full disk)", self.path, holder)
          self._remove_lock()
          continue
      if holder and not _alive(holder):
        logging.warning("Taking over the stale lock %s of %s (no such "
                        "process)", self.path, _describe(holder))
        self._remove_lock()
        continue
      self._cleanup_dir()
      raise self._error(
          "is in use by %s; wait for it to end or use another --%s (%s "
          "is the lock)" % (_describe(holder) if holder else "another run",
                            self.flag, self.path))
    self._cleanup_dir()
    raise self._error("cannot take the lock %s" % self.path)

  def _remove_lock(self):
    try:
      os.remove(self.path)
    except FileNotFoundError:
      pass

  def _cleanup_dir(self):
    if self._created_dir:
      try:
        os.rmdir(self.directory)  # Only if empty: never removes outputs.
      except OSError:
        pass
      self._created_dir = False

  def release(self):
    """Removes the lock file if this process holds it."""
    if not self._held:
      return
    self._held = False
    holder = self._holder()
    if isinstance(holder, dict) and holder.get("pid") == os.getpid():
      try:
        os.remove(self.path)
      except OSError:
        pass
    self._cleanup_dir()

  def __enter__(self):
    return self.acquire()

  def __exit__(self, *exc):
    self.release()
