"""Runs the quick start's stages: scripts in subprocesses, two at a time.

A stage is one top-level script run with this Python from the checkout,
its output going to a log file. Stages are grouped in tracks: the stages of
a track run one after another, the tracks side by side (neither of the
quick start's two keeps two cores busy on its own). Every 10 seconds each
running stage reports what its script last logged.

Example (tests: tests/quickstart/stages_test.py):

  times = []
  run_tracks([[Stage("1/2", "Vocab", ["create_vocab.py", ...]),
               Stage("2/2", "Data", ["create_pretraining_data.py", ...])],
              [Stage("b", "Convert", ["convert_hf_checkpoint.py", ...])]],
             log_dir, times)
  # times: [(label, title, seconds), ...] in the order the stages ended.
"""

import os
import re
import subprocess
import sys
import time

REPORT_EVERY_SECS = 10
# TensorFlow's own log lines: not progress, not shown in the status line.
TF_NOISE = ("signature_serialization.py", "functional_saver.py",
            "builder_impl.py", "fingerprinting_utils.py", "load.py")


class Stage(object):
  """One script to run.

  Attributes:
    label: e.g. "3/5" or "5b"; names the log file (<label>_<script>.log).
    title: what the stage does (one line).
    argv: the script and its flags (run as `python <argv>` in `cwd`).
    after: optional callable() run when the stage has succeeded, before the
      next stage of its track starts (e.g. to write a file the next reads).
  """

  def __init__(self, label, title, argv, after=None):
    self.label, self.title, self.argv, self.after = label, title, argv, after
    self.proc = self.log_path = None
    self.started = 0.0


def format_duration(seconds):
  """Seconds as H:MM:SS.

  >>> format_duration(3725.4)
  '1:02:05'
  """
  seconds = int(round(seconds))
  return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def last_progress_line(log_path):
  """The message of the last absl log line (progress of the running step)."""
  try:
    with open(log_path, "rb") as f:
      f.seek(max(0, os.path.getsize(log_path) - 16384))
      lines = f.read().decode("utf-8", "replace").splitlines()
  except OSError:
    return ""
  for line in reversed(lines):
    if re.match(r"^[IWE]\d{4} [\d:.]+ +\d+ \S+\.py:\d+\] ", line):
      message = line.split("] ", 1)[1].strip()
      source = line.split("] ", 1)[0].split()[-1].split(":")[0]
      if (message and source not in TF_NOISE and
          not message.startswith(("input_ids", "input_mask", "segment_ids",
                                  "tokens", "*** Example"))):
        return message[:130]
  return ""


def _start(stage, log_dir, cwd, out):
  name = os.path.splitext(os.path.basename(stage.argv[0]))[0]
  stage.log_path = os.path.join(log_dir, "%s_%s.log" % (
      stage.label.split("/")[0], name))
  print("[%s] %s" % (stage.label, stage.title), file=out, flush=True)
  print("      $ python %s" % " ".join(stage.argv), file=out, flush=True)
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
  with open(stage.log_path, "wb") as log:
    stage.proc = subprocess.Popen([sys.executable] + stage.argv, cwd=cwd,
                                  stdout=log, stderr=subprocess.STDOUT,
                                  env=env)
  stage.started = time.time()


def _fail(stage, out):
  with open(stage.log_path, "rb") as f:
    tail = f.read().decode("utf-8", "replace").splitlines()[-15:]
  print("\n".join("      | " + l for l in tail), file=out)
  sys.exit("stage %s (%s) failed with exit code %d; full log: %s" % (
      stage.label, os.path.basename(stage.argv[0]), stage.proc.returncode,
      stage.log_path))


def run_tracks(tracks, log_dir, times, cwd=None, out=sys.stdout):
  """Runs each track's stages in order, the tracks side by side.

  Args:
    tracks: list of lists of `Stage`.
    log_dir: each stage's stdout and stderr go to <log_dir>/<label>_<name>.log.
    times: list; (label, title, seconds) is appended as each stage ends.
    cwd: the scripts' working directory (default: the current one).
    out: where the stage headers and status lines go.

  A stage that fails stops the others and exits with its log's last lines.
  Ctrl-C or SIGTERM (as an exception) stops the running scripts too.
  """
  pending = [list(track) for track in tracks if track]
  running = []
  try:
    for track in pending:
      _start(track[0], log_dir, cwd, out)
      running.append(track[0])
    last_report = time.time()
    while running:
      time.sleep(0.5)
      for stage in list(running):
        if stage.proc.poll() is None:
          continue
        if stage.proc.returncode != 0:
          _fail(stage, out)  # run_tracks stops the others.
        elapsed = time.time() - stage.started
        times.append((stage.label, stage.title, elapsed))
        print("      [%s] done in %.0fs" % (stage.label, elapsed), file=out,
              flush=True)
        if stage.after is not None:
          stage.after()
        index = running.index(stage)
        track = next(t for t in pending if t and t[0] is stage)
        track.pop(0)
        if track:
          _start(track[0], log_dir, cwd, out)
          running[index] = track[0]
        else:
          running.pop(index)
      if running and time.time() - last_report >= REPORT_EVERY_SECS:
        last_report = time.time()
        for stage in running:
          print("      %s  [%s] %s" % (
              format_duration(last_report - stage.started), stage.label,
              last_progress_line(stage.log_path) or
              "starting (loading TensorFlow)"), file=out, flush=True)
  except BaseException:  # Ctrl-C, SIGTERM, a failed stage: stop the rest.
    for stage in running:
      if stage.proc.poll() is None:
        stage.proc.terminate()
        stage.proc.wait()
    raise
