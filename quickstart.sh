#!/usr/bin/env bash
# Quick start: runs the whole pipeline (vocab -> pretraining data -> tiny
# BERT pretraining -> fine-tuning + eval) on the small data in data/.
# Needs only Python 3.10+ (3.11 tested); creates ./.venv and installs the
# project on first use. Outputs go to ./output/quickstart/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $("$PYTHON" --version 2>&1) ..."
  "$PYTHON" -m venv .venv
fi
if ! .venv/bin/python -c "import tensorflow, tensorflow_text, keras, absl" \
    >/dev/null 2>&1; then
  echo "Installing the project into .venv (pip install -e .; a few minutes) ..."
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -e .
fi
exec .venv/bin/python quickstart.py "$@"
