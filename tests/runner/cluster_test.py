"""TF_CONFIG checks and the bounded wait for peers (no TensorFlow needed)."""

import json
import socket
import threading

import pytest

from bert_tf2.common import InputError
from bert_tf2.runner import cluster
from bert_tf2.common import launch_local


def _config(workers, index=0, task_type="worker", **extra):
  config = {"cluster": {"worker": workers}, "task": {"type": task_type,
                                                     "index": index}}
  config.update(extra)
  return json.dumps(config)


def test_valid_config_gives_this_task_and_its_peers():
  info = cluster.parse_tf_config(json.dumps({
      "cluster": {"chief": ["c:1"], "worker": ["w0:2", "w1:3"]},
      "task": {"type": "worker", "index": 1}}))
  assert info.address == "w1:3"
  assert info.addresses == ["c:1", "w0:2", "w1:3"]
  assert info.peers == ["c:1", "w0:2"]
  assert info.num_workers == 3 and not info.is_chief
  assert cluster.parse_tf_config(_config(["a:1", "b:2"], 0)).is_chief


@pytest.mark.parametrize("text,expected", [
    ("", "needs the TF_CONFIG environment variable"),
    ("{not json", "TF_CONFIG is not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"task": {"type": "worker", "index": 0}}', "no 'cluster' object"),
    ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker"}}',
     "no 'task' object"),
    (_config("a:1"), "must be a non-empty list"),
    (_config([]), "must be a non-empty list"),
    (_config(["a"]), "'a' is not host:port"),
    (_config(["a:99999"]), "is not host:port"),
    (_config(["a:1"], index=1), "task index 1 is not in 0..0"),
    (_config(["a:1"], index="0"), "task index '0' is not in 0..0"),
    (_config(["a:1"], task_type="ps"), "task type 'ps' cannot train"),
    (_config(["a:1"], task_type="chief"), "'chief' is not a job"),
    (_config(["a:1", "a:1"]), "address a:1 is given to more than one"),
    ('{"cluster": {"ps": ["a:1"]}, "task": {"type": "worker", "index": 0}}',
     "no 'chief' or 'worker' job"),
])
def test_bad_tf_config_names_the_problem(text, expected):
  with pytest.raises(InputError, match=expected.replace("(", r"\(")):
    cluster.parse_tf_config(text)


def test_wait_returns_once_the_peer_listens(monkeypatch):
  own, peer = launch_local.free_ports(2)
  info = cluster.parse_tf_config(_config(
      ["127.0.0.1:%d" % own, "127.0.0.1:%d" % peer]))
  server, attempts = [], []
  refused = threading.Event()
  connect = socket.create_connection

  def counting_connect(address, *args, **kwargs):
    try:
      result = connect(address, *args, **kwargs)
    except OSError:
      attempts.append("refused")
      refused.set()
      raise
    attempts.append("connected")
    return result
  monkeypatch.setattr(cluster.socket, "create_connection", counting_connect)

  def late_peer():  # Listens only after the first attempt was refused.
    if refused.wait(60):
      server.append(socket.create_server(("127.0.0.1", peer)))
  thread = threading.Thread(target=late_peer)
  thread.start()
  try:
    cluster.wait_for_peers(info, timeout_secs=60, poll_secs=0.05)
  finally:
    refused.set()
    thread.join()
    for s in server:
      s.close()
  # It waited through refusals and returned on the first connection.
  assert attempts[0] == "refused" and attempts[-1] == "connected"
  assert attempts.count("connected") == 1
  # Our own port was only borrowed: it is free again for TensorFlow.
  socket.create_server(("127.0.0.1", own)).close()


def test_two_tasks_waiting_for_each_other_both_return():
  configs = launch_local.tf_configs(2)
  infos = [cluster.parse_tf_config(json.dumps(c)) for c in configs]
  errors, servers = [], []

  def run(info):
    try:
      cluster.wait_for_peers(info, timeout_secs=20, poll_secs=0.05)
      # As TensorFlow's server then takes this task's port over.
      servers.append(socket.create_server(
          ("127.0.0.1", cluster.split_address(info.address)[1])))
    except InputError as e:
      errors.append(e)
  threads = [threading.Thread(target=run, args=(i,)) for i in infos]
  for t in threads:
    t.start()
  for t in threads:
    t.join(30)
  for s in servers:
    s.close()
  assert not errors and len(servers) == 2


def test_peer_that_never_comes_times_out_naming_it():
  own, peer = launch_local.free_ports(2)
  info = cluster.parse_tf_config(_config(
      ["127.0.0.1:%d" % own, "127.0.0.1:%d" % peer]))
  with pytest.raises(InputError, match="worker_timeout_secs=1: "
                     "127.0.0.1:%d " % peer):
    cluster.wait_for_peers(info, timeout_secs=1, poll_secs=0.05)


def test_own_port_in_use_is_an_error():
  holder = socket.create_server(("", 0))
  try:
    port = holder.getsockname()[1]
    info = cluster.parse_tf_config(_config(["127.0.0.1:%d" % port]))
    with pytest.raises(InputError, match="cannot listen on port %d" % port):
      cluster.wait_for_peers(info, timeout_secs=1)
  finally:
    holder.close()
