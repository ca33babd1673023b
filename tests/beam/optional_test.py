"""Beam is an optional extra: the core install neither needs nor imports it.

Only bert_tf2.beam's pipeline modules import apache_beam; the scripts, the
pretraining data code and the models load without it (a subprocess: this
test process has Beam loaded)."""

import ast
import glob
import os
import subprocess
import sys

from tests.golden import REPO_ROOT

# The script and what it imports without --runner (the rest of the library
# is covered by the import scan below, without the cost of importing it).
CORE = ("bert_tf2.scripts.create_pretraining_data",
        "bert_tf2.pretraining_data.pipeline", "bert_tf2.beam.argv",
        "bert_tf2.beam.answers")


def test_core_modules_do_not_import_beam():
  code = ("import sys\n" + "".join("import %s\n" % m for m in CORE) +
          "print(sorted(m for m in sys.modules if m.startswith("
          "'apache_beam')))")
  proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT,
                        capture_output=True, text=True, timeout=300,
                        check=False,
                        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
  assert proc.returncode == 0, proc.stderr[-2000:]
  assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_only_the_beam_package_imports_apache_beam():
  importers = []
  for top in ("bert_tf2", "modeling", "tokenization", "optimization"):
    for path in glob.glob(os.path.join(REPO_ROOT, top, "**", "*.py"),
                          recursive=True):
      with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
      for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [])
        if any(n.split(".")[0] == "apache_beam" for n in names):
          importers.append(os.path.relpath(path, REPO_ROOT))
  assert importers and all(p.startswith(os.path.join("bert_tf2", "beam"))
                           for p in importers), importers


def test_beam_is_an_extra_not_a_requirement():
  with open(os.path.join(REPO_ROOT, "setup.py"), encoding="utf-8") as f:
    text = f.read()
  core = text.split("install_requires=[", 1)[1].split("]", 1)[0]
  assert "beam" not in core
  assert '"beam": BEAM' in text and "apache-beam[tfrecord]" in text
