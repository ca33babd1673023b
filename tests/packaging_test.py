"""What `pip install .` puts into site-packages: nothing generic.

The original's users import `modeling`, `tokenization`, `optimization` and
the original scripts; everything else must live under `bert_tf2`, so that
installing the project cannot shadow (or be shadowed by) another package
called `common`, `runner`, `squad`, ...
"""

import ast
import os
import shutil
import subprocess
import sys
import zipfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXPECTED_TOP_LEVEL = {
    "modeling", "tokenization", "optimization", "bert_tf2",
    "create_pretraining_data.py", "extract_features.py", "run_classifier.py",
    "run_pretraining.py", "run_squad.py",
}


def _build_wheel(tmp_path):
  """Builds the project's wheel from a copy of the tracked files."""
  tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT,
                           check=True, capture_output=True).stdout
  src = tmp_path / "src"
  for name in tracked.decode("utf-8").split("\0"):
    if not name or not os.path.lexists(os.path.join(REPO_ROOT, name)):
      continue
    target = src / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(os.path.join(REPO_ROOT, name), target, follow_symlinks=False)
  out = tmp_path / "wheel"
  subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                  "--no-build-isolation", "-w", str(out), str(src)],
                 check=True, capture_output=True, timeout=300)
  wheels = list(out.glob("*.whl"))
  assert len(wheels) == 1, wheels
  return wheels[0]


def test_wheel_adds_only_the_original_names_and_one_package(tmp_path):
  wheel = _build_wheel(tmp_path)
  with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    entry_points = [n for n in names if n.endswith("entry_points.txt")]
    scripts = z.read(entry_points[0]).decode("utf-8")
  top_level = {n.split("/")[0] for n in names
               if not n.split("/")[0].endswith(".dist-info")}
  assert top_level == EXPECTED_TOP_LEVEL
  # Every script is a console command, original or ours.
  for command in ("bert-run-classifier", "bert-run-pretraining",
                  "bert-run-squad", "bert-extract-features",
                  "bert-create-pretraining-data", "bert-quickstart",
                  "bert-create-vocab", "bert-convert-hf-checkpoint"):
    assert command + " = bert_tf2.scripts." in scripts, command
  # The internals are really inside the one package.
  for package in ("common", "runner", "classifier", "squad", "pretraining",
                  "pretraining_data", "feature_extraction", "analysis", "demos",
                  "scripts"):
    assert "bert_tf2/%s/__init__.py" % package in names, package
  # The experiments' baselines stay out of it (bench/baselines/).
  assert not [n for n in names if "baseline" in n], names
  # create_pretraining_data's compiled instance loop is built into it.
  assert any(n.startswith("bert_tf2/pretraining_data/_fast.") and
             n.endswith((".so", ".pyd")) for n in names), names


def test_every_script_has_an_entry_point_and_a_wrapper():
  """Each bert_tf2/scripts/X.py defines run(); the checkout has X.py."""
  scripts_dir = os.path.join(REPO_ROOT, "bert_tf2", "scripts")
  modules = sorted(f[:-3] for f in os.listdir(scripts_dir)
                   if f.endswith(".py") and f != "__init__.py")
  assert "run_classifier" in modules
  for name in modules:
    # Parsed, not imported: the scripts define the same absl flags.
    with open(os.path.join(scripts_dir, name + ".py"), encoding="utf-8") as f:
      tree = ast.parse(f.read())
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"main", "run"} <= functions, name
    with open(os.path.join(REPO_ROOT, name + ".py"), encoding="utf-8") as f:
      wrapper = f.read()
    assert "from bert_tf2.scripts.%s import" % name in wrapper, name
