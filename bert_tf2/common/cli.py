"""Entry point wrapper for the top-level scripts.

`run(main)` is `absl.app.run(main)`, except that
  * a script with an --output_dir flag holds `run_lock.RunLock` on it for
    the whole run;
  * an `InputError`, an OSError or a TensorFlow I/O error (tf.errors.OpError)
    is printed as one line, `error: <message>` naming the flag or path, and
    the script exits with status 1 instead of dumping a traceback (Ctrl-C
    outside training: status 130).

    from bert_tf2.common import cli
    if __name__ == "__main__":
      flags.mark_flag_as_required("output_dir")
      cli.run(main)
"""

import errno
import json
import os
import re
import sys

from absl import app
from absl import flags
from absl import logging

from bert_tf2.common import run_lock
from tokenization import atomic
from tokenization.errors import InputError


def _fail(message, status=1):
  """Prints `error: message` once and exits with `status` (also to the
  absl log when that is a file: on the terminal it would print twice)."""
  stream = getattr(logging.get_absl_handler().python_handler, "stream", None)
  name = getattr(stream, "name", None)
  if isinstance(name, str) and not name.startswith("<"):  # Not <stderr>.
    logging.error("%s", message)
  sys.stderr.write("error: %s\n" % message)
  sys.stderr.flush()
  sys.exit(status)


def os_error_message(e, default_path=None):
  """One line for an OSError: "<path>: <what>" (e.g. no space left)."""
  what = e.strerror or str(e) or type(e).__name__
  if e.errno == errno.ENOSPC:
    what += " (the disk is full)"
  path = e.filename or default_path
  if getattr(e, "filename2", None):
    path = "%s -> %s" % (path, e.filename2)
  return "%s: %s" % (path, what) if path else what


def op_error_message(e):
  """One line for a TensorFlow I/O error: the first line of its message
  (which names the file), prefixed with the error kind."""
  text = (getattr(e, "message", None) or str(e)).strip()
  first = text.splitlines()[0] if text else ""
  # Eager ops prefix "{{function_node __wrapped__SaveV2_...}} " and append
  # " [Op:SaveV2]": noise in a one-line message.
  first = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", first)
  first = re.sub(r"\s*\[Op:\w+\]$", "", first)
  return "%s: %s" % (type(e).__name__, first)


_TASK_RE = re.compile(r"/job:(\w+)(?:/replica:\d+)?/task:(\d+)")
# The errors a collective raises when a peer died or cannot be reached.
_PEER_ERRORS = ("UnavailableError", "AbortedError", "DeadlineExceededError")


def peer_error_message(e, tf_config=None):
  """One line naming the unreachable task of a multi-worker job (from the
  error's /job:worker/replica:0/task:1, its address from TF_CONFIG), or
  None."""
  if type(e).__name__ not in _PEER_ERRORS:
    return None
  try:
    config = json.loads(tf_config if tf_config is not None else
                        os.environ.get("TF_CONFIG") or "{}")
    cluster = dict(config.get("cluster") or {})
    me = config.get("task") or {}
    me = (str(me.get("type")), int(me.get("index", 0)))
  except (ValueError, TypeError, AttributeError):
    return None
  if sum(len(v) for v in cluster.values() if isinstance(v, list)) < 2:
    return None
  text = str(getattr(e, "message", None) or e)
  peers = []
  for kind, index in _TASK_RE.findall(text):
    task = (kind, int(index))
    if task != me and task not in peers:
      peers.append(task)
  def name(task):
    addresses = cluster.get(task[0]) or []
    address = addresses[task[1]] if task[1] < len(addresses) else "?"
    return "%s %d (%s)" % (task[0], task[1], address)
  if peers:
    who = "task " + ", ".join(name(t) for t in peers)
  else:
    who = "a peer task (one of %s)" % ", ".join(
        name((kind, i)) for kind, addresses in sorted(cluster.items())
        for i in range(len(addresses)) if (kind, i) != me)
  return ("%s of this multi-worker job is unreachable (it died or lost its "
          "network; %s). Restart every worker to resume from the latest "
          "checkpoint." % (who, type(e).__name__))


def _output_dir(flag_values):
  if flag_values is None or "output_dir" not in flag_values:
    return None
  return flag_values["output_dir"].value or None


def _guarded(main, flag_values=None):
  """main(argv), with the run lock on a non-empty --output_dir of
  `flag_values` and clean error lines. (No SIGTERM handler is installed: it
  would keep a worker blocked in a collective from dying.)"""
  def wrapper(argv):
    output_dir = _output_dir(flag_values)
    lock = None
    try:
      if output_dir:
        lock = run_lock.RunLock(output_dir).acquire()
      return main(argv)
    except InputError as e:
      _fail(e)
    except KeyboardInterrupt:
      # Training turns Ctrl-C into a checkpoint and TrainingInterrupted;
      # elsewhere (writing records, exporting) every file is written
      # atomically, so what was complete before is intact.
      _fail("interrupted (Ctrl-C); files completed before it are kept, the "
            "one being written is not used", status=130)
    except OSError as e:
      _fail(os_error_message(e, output_dir))
    except Exception as e:  # pylint: disable=broad-except
      tf = sys.modules.get("tensorflow")  # Not imported for this.
      if tf is None or not isinstance(e, tf.errors.OpError):
        raise
      _fail(peer_error_message(e) or op_error_message(e))
    finally:
      if lock is not None:
        lock.release()
  return wrapper



def run(main, argv=None):
  """Runs `main(argv)` under absl with flag parsing and clean input errors."""
  app.run(_guarded(main, flags.FLAGS), argv=argv)


def require_file(flag_name, path):
  """Raises InputError unless `path` (a --flag value) is an existing file
  (only URLs import TensorFlow: evaluate_squad.py needs none)."""
  if not path:
    raise InputError("--%s is required" % flag_name)
  if "://" in path:
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    exists, isdir = tf.io.gfile.exists, tf.io.gfile.isdir
  else:
    exists, isdir = os.path.exists, os.path.isdir
  if not exists(path):
    raise InputError("--%s=%s: file not found" % (flag_name, path))
  if isdir(path):
    raise InputError("--%s=%s: is a directory, expected a file"
                     % (flag_name, path))


def require_output_file(flag_name, path):
  """Raises InputError unless `path` (a --flag value) can be written at the
  end of the run (its directory exists, it is not one, its name with the
  atomic writer's temporary suffix is not too long; URLs: the name only).

  Example:
    >>> try:
    ...   require_output_file("output_file", "/no/such/dir/out.png")
    ... except InputError as e:
    ...   print(e)
    --output_file=/no/such/dir/out.png: directory /no/such/dir does not exist
  """
  if not path:
    raise InputError("--%s is required" % flag_name)
  problem = atomic.too_long_name(path, atomic.TMP_SUFFIX_LENGTH)
  if problem:
    raise InputError("--%s=%s: %s" % (flag_name, path, problem))
  if not atomic.is_local(path):
    return
  parent = os.path.dirname(path)
  if parent and not os.path.isdir(parent):
    raise InputError("--%s=%s: directory %s %s" % (
        flag_name, path, parent, "is not a directory"
        if os.path.exists(parent) else "does not exist"))
  if os.path.isdir(path):
    raise InputError("--%s=%s: is a directory, expected a file"
                     % (flag_name, path))


def expand_globs(flag_name, patterns):
  """Expands a comma-separated list of globs; every one must match a file
  (a path that exists is taken as it is, not as a pattern).

  Returns:
    Sorted-per-pattern list of matching paths, in flag order.
  """
  import tensorflow as tf
  files = []
  for pattern in [p.strip() for p in patterns.split(",") if p.strip()]:
    if tf.io.gfile.exists(pattern):  # A file whose name holds [, * or ?.
      matched = [pattern]
    else:
      matched = sorted(tf.io.gfile.glob(pattern))
    if not matched:
      raise InputError("--%s: %r matches no file" % (flag_name, pattern))
    files.extend(matched)
  if not files:
    raise InputError("--%s is empty" % flag_name)
  return files
