"""Headless Chromium for the HTML page tests (no Python browser driver).

`find_chromium()` returns the binary or fails the test in one line naming
the install command; run_tests.sh leaves the `browser` tests out (saying
so) only when no binary exists. `load(url)` returns the DOM after the
page's scripts ran and the page's console lines; `screenshot(url, path)`
writes a PNG.
"""

import os
import re
import shutil
import subprocess

import pytest

NAMES = ("chromium", "chromium-browser", "google-chrome")
INSTALL = "apt-get install -y chromium"
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
          "--allow-file-access-from-files", "--virtual-time-budget=5000",
          "--enable-logging=stderr", "--v=0"]
# Chromium logs every console message of a page (log, error, uncaught
# exception) as one INFO:CONSOLE line.
_CONSOLE = re.compile(r":CONSOLE[^\]]*\] (.*)")


def find_chromium():
  """Path of a Chromium binary ($CHROMIUM first); fails the test if none."""
  for name in ((os.environ.get("CHROMIUM"),) if os.environ.get("CHROMIUM")
               else ()) + NAMES:
    path = shutil.which(name)
    if path:
      return path
  pytest.fail("no chromium binary for the browser tests: %s" % INSTALL,
              pytrace=False)


def _run(args, tmp_dir):
  env = dict(os.environ, HOME=tmp_dir)  # Profile and crash dumps there.
  proc = subprocess.run([find_chromium()] + _FLAGS + [
      "--user-data-dir=" + os.path.join(tmp_dir, "profile")] + args,
                        capture_output=True, text=True, timeout=120, env=env)
  assert proc.returncode == 0, proc.stderr[-2000:]
  return proc


def load(url, tmp_dir):
  """(dom, console_lines) of `url` once its scripts have run."""
  proc = _run(["--dump-dom", url], tmp_dir)
  return proc.stdout, _CONSOLE.findall(proc.stderr)


def screenshot(url, path, tmp_dir, size=(1200, 900)):
  """Writes a PNG of `url` rendered at `size` to `path`."""
  _run(["--screenshot=" + path, "--window-size=%d,%d" % size, url], tmp_dir)
  assert os.path.isfile(path), path
