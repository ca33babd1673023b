"""What `pip install .` puts into site-packages: nothing generic.

The original's users import `modeling`, `tokenization`, `optimization` and
the original scripts; the rest of the library must live under `bert_tf2`,
and the learners' experiments under `bert_research` (beside it), so that
installing the project cannot shadow (or be shadowed by) another package
called `common`, `runner`, `squad`, `analysis`, ...
"""

import ast
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXPECTED_TOP_LEVEL = {
    "modeling", "tokenization", "optimization", "bert_tf2", "bert_research",
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


def test_wheel_adds_only_the_original_names_and_two_packages(tmp_path):
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
  # The research tools' commands run bert_research's mains.
  for command in ("bert-analyze-position-embeddings",
                  "bert-visualize-attention"):
    assert command + " = bert_research.scripts." in scripts, command
  # The internals are really inside the library's package ...
  for package in ("common", "runner", "classifier", "squad", "pretraining",
                  "pretraining_data", "feature_extraction", "quickstart",
                  "scripts"):
    assert "bert_tf2/%s/__init__.py" % package in names, package
  # ... and the experiments beside it, not in it.
  for package in ("analysis", "analysis/questions", "demos", "scripts"):
    assert "bert_research/%s/__init__.py" % package in names, package
  assert not [n for n in names if n.startswith(("bert_tf2/analysis/",
                                                "bert_tf2/demos/"))], names
  # The experiments' baselines stay out of it (bench/baselines/).
  assert not [n for n in names if "baseline" in n], names
  # create_pretraining_data's compiled instance loop is built into it.
  assert any(n.startswith("bert_tf2/pretraining_data/_fast.") and
             n.endswith((".so", ".pyd")) for n in names), names


def _script_modules(package):
  scripts_dir = os.path.join(REPO_ROOT, package, "scripts")
  return scripts_dir, sorted(f[:-3] for f in os.listdir(scripts_dir)
                             if f.endswith(".py") and f != "__init__.py")


@pytest.mark.parametrize("package", ["bert_tf2", "bert_research"])
def test_every_script_has_an_entry_point_and_a_wrapper(package):
  """Each <package>/scripts/X.py defines run(); the checkout has X.py; setup.py
  makes it the console command bert-X."""
  scripts_dir, modules = _script_modules(package)
  assert {"bert_tf2": "run_classifier",
          "bert_research": "visualize_attention"}[package] in modules
  with open(os.path.join(REPO_ROOT, "setup.py"), encoding="utf-8") as f:
    research = next(set(ast.literal_eval(node.value))
                    for node in ast.parse(f.read()).body
                    if isinstance(node, ast.Assign) and
                    getattr(node.targets[0], "id", None) == "RESEARCH_SCRIPTS")
  # setup.py's RESEARCH_SCRIPTS get their entry points from bert_research.
  if package == "bert_research":
    assert set(modules) == research
  else:
    assert not set(modules) & research
  for name in modules:
    # Parsed, not imported: the scripts define the same absl flags.
    with open(os.path.join(scripts_dir, name + ".py"), encoding="utf-8") as f:
      tree = ast.parse(f.read())
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"main", "run"} <= functions, name
    with open(os.path.join(REPO_ROOT, name + ".py"), encoding="utf-8") as f:
      wrapper = f.read()
    assert "from %s.scripts.%s import" % (package, name) in wrapper, name
