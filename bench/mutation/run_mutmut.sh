#!/usr/bin/env bash
# Mutation testing with mutmut 3 (not in CI: slow). One target at a time, each
# restricted to its own fast tests, in a scratch copy of the working tree so
# the checkout is never modified:
#
#   bench/mutation/run_mutmut.sh TARGET [MUTANT_GLOB...]
#
# TARGET is one of the names below. MUTANT_GLOBs (mutmut's names, e.g.
# 'modeling.attention*') restrict the run to a sample. Needs
# `pip install mutmut` (the optional `mutation` extra). Results:
# $WORK/TARGET/mutants (mutmut results / show), summary printed at the end.
set -euo pipefail
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=${PY:-$REPO/.venv/bin/python}
[ -x "$PY" ] || PY=/work/main/.venv/bin/python
MUTMUT=$(dirname "$PY")/mutmut
WORK=${WORK:-/tmp/bert_tf2_mutation}
TARGET=$1; shift

case "$TARGET" in
  modeling)
    SRC=modeling; ONLY=""
    TESTS="tests/modeling/bert_model_test.py tests/modeling/config_test.py
           tests/modeling/dropout_layer_test.py tests/modeling/heads_test.py
           tests/modeling/checkpoint_test.py tests/modeling/dropout_golden_test.py" ;;
  optimization)
    SRC=optimization; ONLY=""
    TESTS="tests/optimization/optimizer_test.py tests/optimization/golden_test.py" ;;
  classifier_task)  # The fast tests only (pipeline_test trains a model).
    SRC=bert_tf2; ONLY=bert_tf2/classifier/task.py
    TESTS="tests/classifier/regression_test.py::test_streaming_pearson_equals_numpy
           tests/classifier/regression_test.py::test_pipeline_pearson_helper
           tests/classifier/features_test.py" ;;
  dynamic_masking)
    SRC=bert_tf2; ONLY=bert_tf2/pretraining/dynamic_masking.py
    TESTS="tests/pretraining/dynamic_masking_test.py" ;;
  squad_evaluate)
    SRC=bert_tf2; ONLY=bert_tf2/squad/evaluate.py
    TESTS="tests/squad/evaluate_test.py tests/squad/official_metrics_test.py" ;;
  *) echo "unknown target $TARGET" >&2; exit 2 ;;
esac
# MUTMUT_TESTS="a_test.py b_test.py" replaces the target's test files.
TESTS=${MUTMUT_TESTS:-$TESTS}

DIR=$WORK/$TARGET
mkdir -p "$DIR"
# A plain copy of the tracked and new files (no .git, no outputs).
(cd "$REPO" && git ls-files -co --exclude-standard -z) |
  (cd "$REPO" && xargs -0 -I{} cp --parents {} "$DIR" 2>/dev/null || true)
# mutmut wraps each mutated function in a (*args, **kwargs) trampoline;
# Keras' Operation.__new__ reads the argspec of a layer's __init__ and fails
# on it (IndexError), so give each __init__ trampoline its function's
# signature (only __init__: functools.wraps in Keras' build() wrapper would
# copy a __signature__ that still names `self`).
cat > "$DIR/conftest.py" <<'PYEOF'
import inspect
try:
  from mutmut.mutation import trampoline as _trampoline
except ImportError:
  _trampoline = None
if _trampoline is not None:
  _wrap = _trampoline.wrap_in_trampoline

  def _wrap_with_signature(*args, **kwargs):
    decorate = _wrap(*args, **kwargs)

    def decorator(func):
      wrapper = decorate(func)
      try:
        if func.__name__ == "__init__":
          wrapper.__signature__ = inspect.signature(func)
      except (TypeError, ValueError, AttributeError):
        pass
      return wrapper
    return decorator

  _trampoline.wrap_in_trampoline = _wrap_with_signature
PYEOF
EXISTING=""
for t in $TESTS; do [ -f "$DIR/${t%%::*}" ] && EXISTING="$EXISTING $t"; done
{
  echo "[mutmut]"
  echo "source_paths = $SRC"
  [ -n "$ONLY" ] && echo "only_mutate = $ONLY"
  echo "also_copy ="
  # The root scripts (run_classifier.py, convert_hf_checkpoint.py, ...) too.
  for p in modeling optimization tokenization bert_tf2 tests pytest.ini \
           $(cd "$DIR" && ls *.py); do
    [ "$p" = "$SRC" ] || echo "    $p"
  done
  echo "pytest_add_cli_args_test_selection ="
  for t in $EXISTING; do echo "    $t"; done
  echo "pytest_add_cli_args ="
  echo "    -p"
  echo "    no:randomly"
  echo "    -x"
  echo "process_isolation = forkserver"
  echo "timeout_multiplier = 10.0"
} > "$DIR/setup.cfg"
cd "$DIR"
export TF_CPP_MIN_LOG_LEVEL=2 CUDA_VISIBLE_DEVICES=""
if [ "${MUTMUT_LIST:-0}" = 1 ]; then
  # Generate the mutants only and print their names (to draw a sample).
  "$PY" - <<'PYEOF'
import json, pathlib
from mutmut import __main__ as m
from mutmut.utils import file_utils as f
m.makedirs(pathlib.Path("mutants"), exist_ok=True)
f.copy_src_dir(); m.copy_also_copy_files(); f.setup_source_paths()
m.create_mutants(1)
for meta in sorted(pathlib.Path("mutants").rglob("*.meta")):
  for name in sorted(json.loads(meta.read_text())["exit_code_by_key"]):
    print("MUTANT", name)
PYEOF
  exit 0
fi
"$MUTMUT" run --max-children "${MAX_CHILDREN:-1}" "$@" || true
"$MUTMUT" export-cicd-stats >/dev/null 2>&1 || true
cat mutants/mutmut-cicd-stats.json 2>/dev/null || true
