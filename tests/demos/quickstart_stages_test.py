"""quickstart_stages.run_tracks: tracks side by side, stages in order."""

import io
import os
import sys
import time

import pytest

from bert_tf2.demos import quickstart_stages
from bert_tf2.demos.quickstart_stages import Stage


def _script(tmp_path, name, body):
  path = tmp_path / (name + ".py")
  path.write_text(body)
  return str(path)


def test_tracks_run_side_by_side_each_in_order(tmp_path, monkeypatch):
  monkeypatch.setattr(quickstart_stages, "REPORT_EVERY_SECS", 0.5)
  stamp = str(tmp_path / "stamps")
  # Each stage appends "<name> start/end <time>"; "slow" stages sleep 1.5 s.
  body = ("import sys, time\n"
          "name, secs = sys.argv[1], float(sys.argv[2])\n"
          "open(%r, 'a').write('%%s start %%f\\n' %% (name, time.time()))\n"
          "time.sleep(secs)\n"
          "open(%r, 'a').write('%%s end %%f\\n' %% (name, time.time()))\n"
          % (stamp, stamp))
  script = _script(tmp_path, "stage", body)
  after = []
  tracks = [[Stage("1", "a1", [script, "a1", "0.2"],
                   after=lambda: after.append(time.time())),
             Stage("2", "a2", [script, "a2", "0.2"])],
            [Stage("b", "b1", [script, "b1", "1.5"])]]
  out, times = io.StringIO(), []
  quickstart_stages.run_tracks(tracks, str(tmp_path), times, out=out)
  events = {}
  with open(stamp) as f:
    for line in f:
      name, what, when = line.split()
      events[(name, what)] = float(when)
  # b1 ran while a1 and a2 did; a2 started after a1 ended and its hook ran.
  assert events[("b1", "start")] < events[("a1", "end")]
  assert events[("a2", "start")] < events[("b1", "end")]
  assert events[("a1", "end")] <= after[0] <= events[("a2", "start")]
  assert sorted(label for label, _, _ in times) == ["1", "2", "b"]
  text = out.getvalue()
  for label in ("1", "2", "b"):
    assert "[%s] done in" % label in text
    assert os.path.exists(tmp_path / ("%s_stage.log" % label))
  assert "[b] " in text.split("[b] b1")[1]  # A status line names its stage.


def test_a_failed_stage_stops_the_other_track(tmp_path, capsys):
  fail = _script(tmp_path, "fail", "import sys\nprint('bad input')\n"
                 "sys.exit(3)\n")
  marker = tmp_path / "finished"
  slow = _script(tmp_path, "slow", "import time\ntime.sleep(30)\n"
                 "open(%r, 'w').write('x')\n" % str(marker))
  never = tmp_path / "never"
  tracks = [[Stage("1", "fails", [fail]),
             Stage("2", "never runs", ["-c", "open(%r, 'w')" % str(never)])],
            [Stage("b", "slow", [slow])]]
  start = time.time()
  with pytest.raises(SystemExit) as e:
    quickstart_stages.run_tracks(tracks, str(tmp_path), [], out=sys.stdout)
  assert time.time() - start < 20  # The slow stage was stopped.
  assert "stage 1 (fail.py) failed with exit code 3" in str(e.value.code)
  assert "| bad input" in capsys.readouterr().out
  time.sleep(0.5)
  assert not marker.exists() and not never.exists()
