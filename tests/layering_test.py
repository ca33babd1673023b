"""The arrows between the project's packages point one way.

`modeling`, `tokenization` and `optimization` (the original's packages) sit
below `bert_tf2`: none of their modules imports `bert_tf2`, not even lazily
inside a function. `tokenization` stays pure Python (no TensorFlow at
import). Inside `bert_tf2`, the task libraries do not import the demos
(`bert_tf2.demos`); only the scripts may.
"""

import ast
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOWER = ("modeling", "tokenization", "optimization")


def _python_files(top):
  for root, _, files in os.walk(os.path.join(REPO, top)):
    for name in sorted(files):
      if name.endswith(".py"):
        yield os.path.join(root, name)


def _imported_modules(path):
  """Every module an import statement in `path` names, at any depth."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  names = []
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names += [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0:
      names.append(node.module or "")
      names += ["%s.%s" % (node.module, alias.name) for alias in node.names]
  return names


def _offenders(tops, forbidden):
  found = {}
  for top in tops:
    for path in _python_files(top):
      bad = [n for n in _imported_modules(path)
             if n == forbidden or n.startswith(forbidden + ".")]
      if bad:
        found[os.path.relpath(path, REPO)] = sorted(set(bad))
  return found


def test_imported_modules_sees_lazy_imports(tmp_path):
  path = tmp_path / "m.py"
  path.write_text("def f():\n  from bert_tf2.common import atomic\n"
                  "  import bert_tf2.runner\n")
  assert set(_imported_modules(str(path))) >= {
      "bert_tf2.common", "bert_tf2.runner"}


def test_lower_packages_never_import_bert_tf2():
  assert _offenders(LOWER, "bert_tf2") == {}


def test_importing_lower_packages_loads_no_bert_tf2():
  code = ("import sys\n"
          "import tokenization\n"
          "assert 'tensorflow' not in sys.modules, 'tokenization loads TF'\n"
          "import modeling, optimization\n"
          "print(sorted(m for m in sys.modules if m.split('.')[0] == "
          "'bert_tf2'))\n")
  env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="3")
  out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stderr[-2000:]
  assert out.stdout.strip().splitlines()[-1] == "[]"


def test_task_libraries_do_not_import_the_demos():
  libraries = [os.path.join("bert_tf2", name)
               for name in sorted(os.listdir(os.path.join(REPO, "bert_tf2")))
               if name not in ("demos", "scripts", "__pycache__") and
               os.path.isdir(os.path.join(REPO, "bert_tf2", name))]
  assert "bert_tf2/classifier" in libraries
  assert _offenders(libraries + list(LOWER), "bert_tf2.demos") == {}
