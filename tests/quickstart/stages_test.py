"""bert_tf2.quickstart.stages.run_tracks: tracks side by side, stages in order."""

import io
import os
import sys

import pytest

from bert_tf2.quickstart import stages
from bert_tf2.quickstart.stages import Stage


def _script(tmp_path, name, body):
  path = tmp_path / (name + ".py")
  path.write_text(body)
  return str(path)


# A stage: appends "<name> start" to the stamp file, creates <name>.started,
# waits (a bounded poll, failing with a message) for the stage named by
# argv[2] to have started, then appends "<name> end".
_STAGE = """import os, sys, time
name, wait_for, stamp = sys.argv[1:4]
folder = os.path.dirname(stamp)
open(stamp, "a").write(name + " start\\n")
open(os.path.join(folder, name + ".started"), "w").close()
for _ in range(6000):
  if wait_for == "-" or os.path.exists(os.path.join(folder,
                                                    wait_for + ".started")):
    break
  time.sleep(0.01)  # Polling a file, not timing.
else:
  sys.exit(name + ": " + wait_for + " never started")
open(stamp, "a").write(name + " end\\n")
"""


def test_tracks_run_side_by_side_each_in_order(tmp_path):
  stamp = str(tmp_path / "stamps")
  script = _script(tmp_path, "stage", _STAGE)
  # a1 waits for b1 and b1 for a2: run one track after the other and a
  # stage waits for one that never starts.
  tracks = [[Stage("1", "a1", [script, "a1", "b1", stamp],
                   after=lambda: open(stamp, "a").write("hook\n")),
             Stage("2", "a2", [script, "a2", "-", stamp])],
            [Stage("b", "b1", [script, "b1", "a2", stamp])]]
  out, times = io.StringIO(), []
  stages.run_tracks(tracks, str(tmp_path), times, out=out)
  with open(stamp) as f:
    events = f.read().split("\n")
  # a2 started after a1 ended and its hook ran; b1 ran meanwhile.
  assert events.index("a1 end") < events.index("hook") < events.index(
      "a2 start")
  assert events.index("b1 start") < events.index("a2 start") < events.index(
      "b1 end")
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
  # Waits for a file that never comes (bounded), then writes the marker.
  slow = _script(tmp_path, "slow", "import os, time\n"
                 "for _ in range(12000):\n"
                 "  if os.path.exists(%r): break\n"
                 "  time.sleep(0.01)\n"
                 "open(%r, 'w').write('x')\n"
                 % (str(tmp_path / "release"), str(marker)))
  never = tmp_path / "never"
  tracks = [[Stage("1", "fails", [fail]),
             Stage("2", "never runs", ["-c", "open(%r, 'w')" % str(never)])],
            [Stage("b", "slow", [slow])]]
  with pytest.raises(SystemExit) as e:
    stages.run_tracks(tracks, str(tmp_path), [], out=sys.stdout)
  assert "stage 1 (fail.py) failed with exit code 3" in str(e.value.code)
  assert "| bad input" in capsys.readouterr().out
  # run_tracks stopped the slow stage and waited for it: released now, it
  # cannot write the marker any more.
  (tmp_path / "release").write_text("")
  assert not marker.exists() and not never.exists()
