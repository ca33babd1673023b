"""A worker of a two-worker run_pretraining.py job dies (issue 29 item 3).

Worker 1 is SIGKILLed after the job's first checkpoint; worker 0 (the
chief) must exit by itself with status 1 and one `error:` line naming
worker 1 and its address, not a gRPC traceback, and the checkpoint is
intact. Both tasks hold their own lock file on the shared output_dir.
(The survivor notices through MultiWorkerMirroredStrategy's
heartbeats; the test's own bound is fixtures.finish's timeout.)
"""

import json
import os
import signal
import subprocess
import sys

import pytest

from bert_tf2.common import launch_local
from bert_tf2.runner import checkpoints
from tests.golden import REPO_ROOT
from tests.reliability import fixtures
from tests.reliability import multi_worker_script_test as multi_worker


@pytest.mark.slow
def test_survivor_of_a_dead_peer_names_it(inputs, tmp_path):
  out = str(tmp_path / "out")
  args = multi_worker._pretraining_args(  # pylint: disable=protected-access
      inputs, inputs["config"], out, 100000, iterations_per_loop=1) + [
          "--strategy=multi_worker", "--worker_timeout_secs=60"]
  configs = launch_local.tf_configs(2)
  procs = []
  for config, stderr in zip(configs, (subprocess.PIPE, subprocess.DEVNULL)):
    procs.append(subprocess.Popen(
        [sys.executable, os.path.join(REPO_ROOT, "run_pretraining.py")] +
        args, cwd=REPO_ROOT, env=dict(fixtures.script_env(),
                                      TF_CONFIG=json.dumps(config)),
        stdout=subprocess.DEVNULL, stderr=stderr, text=True))
  chief, peer = procs
  try:
    # Synchronise on the chief's log: its first saved checkpoint.
    seen = []
    for line in chief.stderr:
      seen.append(line)
      if "Saved checkpoint" in line:
        break
    assert any("Saved checkpoint" in l for l in seen), "".join(seen[-30:])
    # The two tasks share output_dir, each under its own lock file.
    holders = {name: json.load(open(os.path.join(out, name)))["pid"]
               for name in ("run.lock", "run.lock.worker-1")}
    assert holders == {"run.lock": chief.pid, "run.lock.worker-1": peer.pid}
    peer.send_signal(signal.SIGKILL)
    peer.wait()
    codes, errors = fixtures.finish([chief])
  finally:
    for proc in procs:
      if proc.poll() is None:
        proc.kill()
        proc.wait()
  result = subprocess.CompletedProcess([], codes[0], "", errors[0])
  line = fixtures.error_line(result)
  assert line.startswith("error: task worker 1 (%s) of this multi-worker "
                         "job is unreachable" % configs[0]["cluster"][
                             "worker"][1]), line
  assert checkpoints.latest_checkpoint(out) is not None
  # The chief released its lock; the killed worker's is left, stale (the
  # next run of worker 1 on this host takes it over).
  assert sorted(n for n in os.listdir(out) if n.startswith("run.lock")) == [
      "run.lock.worker-1"]
