"""bert_tf2.common.launch_local: N local workers, each with its TF_CONFIG."""

import json
import subprocess
import sys

from bert_tf2.common import launch_local
from tests.runner import conftest


def _launch(args, timeout=60):
  return subprocess.run(
      [sys.executable, "-m", "bert_tf2.common.launch_local"] + args,
      cwd=conftest.REPO, env=conftest.subprocess_env(), capture_output=True,
      text=True, timeout=timeout, check=False)


def test_each_worker_gets_its_own_tf_config(tmp_path):
  script = ("import json, os, sys; c = json.loads(os.environ['TF_CONFIG']); "
            "open(os.path.join(sys.argv[1], str(c['task']['index'])), 'w')"
            ".write(json.dumps(c))")
  result = _launch(["--num_workers=3", "--", sys.executable, "-c", script,
                    str(tmp_path)])
  assert result.returncode == 0, result.stderr
  configs = [json.loads((tmp_path / str(i)).read_text()) for i in range(3)]
  workers = configs[0]["cluster"]["worker"]
  assert len(set(workers)) == 3
  for i, config in enumerate(configs):
    assert config == {"cluster": {"worker": workers},
                      "task": {"type": "worker", "index": i}}


def test_a_failing_worker_stops_the_others_and_sets_the_status():
  script = ("import json, os, time; c = json.loads(os.environ['TF_CONFIG']);"
            " i = c['task']['index']; time.sleep(0.5 if i else 120); "
            "raise SystemExit(3)")
  result = _launch(["--num_workers=2", "--", sys.executable, "-c", script])
  assert result.returncode == 3, result.stderr


def test_tf_configs_with_given_ports():
  configs = launch_local.tf_configs(2, ports=[2222, 2223], host="10.0.0.1")
  assert configs[0]["cluster"]["worker"] == ["10.0.0.1:2222",
                                             "10.0.0.1:2223"]
  assert [c["task"]["index"] for c in configs] == [0, 1]
  assert len(set(launch_local.free_ports(4))) == 4


def test_a_killed_worker_is_named_with_its_signal():
  """Worker 1 dies by SIGKILL (as the OOM killer does); worker 0 waits for
  the launcher's SIGTERM. The launcher says which worker died and how."""
  script = ("import json, os, signal; "
            "c = json.loads(os.environ['TF_CONFIG']); "
            "os.kill(os.getpid(), signal.SIGKILL) if c['task']['index'] "
            "else signal.pause()")
  result = _launch(["--num_workers=2", "--", sys.executable, "-c", script])
  assert result.returncode == 128 + 9, result.stderr
  lines = [l for l in result.stderr.splitlines()
           if l.startswith("launch_local: ")]
  assert len(lines) == 1, result.stderr
  assert lines[0].startswith("launch_local: worker 1 (pid ")
  assert lines[0].endswith(" was killed by SIGKILL; stopping the other "
                           "workers")


def test_how_it_ended():
  assert launch_local.how_it_ended(3) == "exited with status 3"
  assert launch_local.how_it_ended(-15) == "was killed by SIGTERM"
  assert launch_local.exit_status(-15) == 143
  assert launch_local.exit_status(1) == 1
