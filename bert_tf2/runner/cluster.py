"""TF_CONFIG checks and a bounded wait for the other workers of a job.

Pure Python (no TensorFlow): it runs before the strategy is created.

MultiWorkerMirroredStrategy's start-up blocks forever, ignoring SIGTERM,
when a peer never comes; `wait_for_peers` gives a clear error instead.
While it waits, this task listens on its own port so that peers see it.

Example:
  >>> info = parse_tf_config('{"cluster": {"worker": ["h0:2222", "h1:2222"]},'
  ...                        ' "task": {"type": "worker", "index": 1}}')
  >>> info.address, info.peers, info.is_chief
  ('h1:2222', ['h0:2222'], False)
"""

import collections
import json
import socket
import time

from bert_tf2.common import InputError

# The task types MultiWorkerMirroredStrategy trains with.
TRAINING_JOBS = ("chief", "worker")


class ClusterInfo(collections.namedtuple(
    "ClusterInfo", ["cluster", "task_type", "task_index"])):
  """A checked TF_CONFIG: cluster {job: [host:port]}, this task's place."""

  @property
  def address(self):
    return self.cluster[self.task_type][self.task_index]

  @property
  def addresses(self):
    """Every training task's address, chief first."""
    return [a for job in TRAINING_JOBS for a in self.cluster.get(job, [])]

  @property
  def peers(self):
    own = self.address
    return [a for a in self.addresses if a != own]

  @property
  def num_workers(self):
    return len(self.addresses)

  @property
  def is_chief(self):
    """The task that writes checkpoints: the chief, else worker 0."""
    if "chief" in self.cluster:
      return self.task_type == "chief"
    return self.task_index == 0


def split_address(address, what="TF_CONFIG"):
  """("host", port) of "host:port" (IPv6 as "[::1]:port")."""
  host, sep, port = str(address).rpartition(":")
  host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
  if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
    raise InputError("%s: address %r is not host:port" % (what, address))
  return host, int(port)


def parse_tf_config(text):
  """Checks the TF_CONFIG of a multi-worker job; returns a `ClusterInfo`.

  Raises:
    InputError: unset, not JSON, no cluster/task, a job that is not a list
      of host:port addresses, or this task not in the cluster.
  """
  if not text or not text.strip():
    raise InputError("--strategy=multi_worker needs the TF_CONFIG environment "
                     "variable: {\"cluster\": {\"worker\": [\"host:port\", "
                     "...]}, \"task\": {\"type\": \"worker\", \"index\": i}} "
                     "(see docs/distributed.md)")
  try:
    config = json.loads(text)
  except ValueError as e:
    raise InputError("TF_CONFIG is not valid JSON (%s): %r"
                     % (e, text[:200])) from e
  if not isinstance(config, dict):
    raise InputError("TF_CONFIG must be a JSON object with 'cluster' and "
                     "'task', got %r" % text[:200])
  cluster, task = config.get("cluster"), config.get("task")
  if not isinstance(cluster, dict) or not cluster:
    raise InputError("TF_CONFIG has no 'cluster' object ({job: [host:port, "
                     "...]})")
  if not isinstance(task, dict) or "type" not in task or "index" not in task:
    raise InputError("TF_CONFIG has no 'task' object with 'type' and "
                     "'index' (this worker's place in the cluster)")
  for job, addresses in cluster.items():
    if (not isinstance(addresses, list) or not addresses or
        not all(isinstance(a, str) for a in addresses)):
      raise InputError("TF_CONFIG: cluster job %r must be a non-empty list of "
                       "\"host:port\" strings, got %r" % (job, addresses))
    for address in addresses:
      split_address(address, "TF_CONFIG cluster job %r" % job)
  jobs = [j for j in cluster if j in TRAINING_JOBS]
  if not jobs:
    raise InputError("TF_CONFIG: the cluster has no 'chief' or 'worker' job "
                     "(jobs: %s)" % ", ".join(sorted(cluster)))
  if len(cluster.get("chief", [])) > 1:
    raise InputError("TF_CONFIG: a cluster has at most one chief, got %d"
                     % len(cluster["chief"]))
  task_type, index = task["type"], task["index"]
  if task_type not in TRAINING_JOBS:
    raise InputError("TF_CONFIG: task type %r cannot train with "
                     "--strategy=multi_worker (use 'chief' or 'worker')"
                     % (task_type,))
  if task_type not in cluster:
    raise InputError("TF_CONFIG: task type %r is not a job of the cluster "
                     "(jobs: %s)" % (task_type, ", ".join(sorted(cluster))))
  if isinstance(index, bool) or not isinstance(index, int) or not (
      0 <= index < len(cluster[task_type])):
    raise InputError("TF_CONFIG: task index %r is not in 0..%d (job %r has "
                     "%d addresses)" % (index, len(cluster[task_type]) - 1,
                                        task_type, len(cluster[task_type])))
  info = ClusterInfo(cluster, task_type, index)
  duplicates = {a for a in info.addresses if info.addresses.count(a) > 1}
  if duplicates:
    raise InputError("TF_CONFIG: address %s is given to more than one task"
                     % sorted(duplicates)[0])
  return info


def _listen(address):
  """A socket listening on the port of `address` on every interface.

  Raises:
    InputError: another process holds the port.
  """
  _, port = split_address(address)
  error = None
  families = [socket.AF_INET]
  if socket.has_dualstack_ipv6():
    families.insert(0, socket.AF_INET6)
  for family in families:
    try:
      return socket.create_server(
          ("", port), family=family,
          dualstack_ipv6=family == socket.AF_INET6)
    except OSError as e:
      error = e
  raise InputError("TF_CONFIG: this task's address %s: cannot listen on port "
                   "%d (%s); is another process using it?"
                   % (address, port, error))


def wait_for_peers(info, timeout_secs, poll_secs=0.2):
  """Waits until every other task of `info` accepts a TCP connection.

  Args:
    info: a `ClusterInfo`.
    timeout_secs: give up after this many seconds.
    poll_secs: pause between rounds of connection attempts.

  Raises:
    InputError: naming the tasks that did not answer in time, or this task's
      port when another process holds it.
  """
  listener = _listen(info.address)
  deadline = time.monotonic() + float(timeout_secs)
  waiting = list(info.peers)
  last_error = {}
  try:
    while waiting:
      for address in list(waiting):
        host, port = split_address(address)
        budget = max(0.05, min(2.0, deadline - time.monotonic()))
        try:
          socket.create_connection((host, port), timeout=budget).close()
          waiting.remove(address)
        except OSError as e:
          last_error[address] = e
      if not waiting:
        break
      if time.monotonic() >= deadline:
        raise InputError(
            "--strategy=multi_worker: %d of %d other task(s) did not answer "
            "within --worker_timeout_secs=%g: %s (last error: %s). Start "
            "every task of TF_CONFIG's cluster, with the same command." % (
                len(waiting), len(info.peers), float(timeout_secs),
                ", ".join(waiting), last_error.get(waiting[0])))
      time.sleep(poll_secs)
  finally:
    listener.close()
