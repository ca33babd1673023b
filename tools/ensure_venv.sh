# Sourced by quickstart.sh and run_tests.sh (bash). Defines ensure_venv.
#
# ensure_venv: leaves ./.venv a Python environment whose bin/python runs,
# creating it with ${PYTHON:-python3} -m venv when there is none. Cases:
#   no .venv                       -> created (Python 3.10+ is checked first)
#   link to a working environment  -> kept (the user's choice)
#   link that dangles or points to something that is not an environment
#   (e.g. a link to another machine's venv left in a checkout)
#                                  -> the link alone is removed, and a new
#                                     environment is created in its place
#   directory whose bin/python does not run, or a plain file
#                                  -> left alone; one "error: ..." line on
#                                     stderr says what to do; returns 1
# Prints nothing when .venv is already fine. Returns 0 when .venv/bin/python
# runs afterwards, else 1 (and never leaves a half-made .venv behind).

_venv_error() {
  echo "error: $*" >&2
  return 1
}

ensure_venv() {
  local python=${PYTHON:-python3}
  if [ -L .venv ]; then
    if .venv/bin/python -c "" >/dev/null 2>&1; then
      return 0
    fi
    echo "note: .venv is a link to '$(readlink .venv)', which is not a" \
      "working Python environment; replacing the link with a new one" >&2
    rm -f .venv || _venv_error "cannot remove the .venv link; remove it" \
      "(rm .venv) and run again" || return 1
  elif [ -d .venv ]; then
    if .venv/bin/python -c "" >/dev/null 2>&1; then
      return 0
    fi
    _venv_error ".venv exists but .venv/bin/python does not run (an" \
      "unfinished or moved environment); remove it (rm -rf .venv) and run" \
      "again"
    return 1
  elif [ -e .venv ]; then
    _venv_error ".venv is a file, not an environment; move it away" \
      "(mv .venv .venv.old) and run again"
    return 1
  fi
  if ! command -v "$python" >/dev/null 2>&1; then
    _venv_error "'$python' not found; install Python 3.10+ or set" \
      "PYTHON=/path/to/python3"
    return 1
  fi
  if ! "$python" -c "import sys; sys.exit(sys.version_info < (3, 10))" \
      >/dev/null 2>&1; then
    _venv_error "$("$python" --version 2>&1) ('$python') is too old:" \
      "Python 3.10+ is needed; set PYTHON=/path/to/python3.11"
    return 1
  fi
  echo "Creating .venv with $("$python" --version 2>&1) ..."
  if ! "$python" -m venv .venv || ! .venv/bin/python -c "" >/dev/null 2>&1
  then
    rm -rf .venv
    _venv_error "'$python -m venv .venv' failed (on Debian/Ubuntu:" \
      "apt install python3-venv)"
    return 1
  fi
}
