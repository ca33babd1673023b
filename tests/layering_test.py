"""The arrows between the project's packages point one way.

`modeling`, `tokenization` and `optimization` (the original's packages) sit
below `bert_tf2`: none of their modules imports `bert_tf2`, not even lazily
inside a function. `tokenization` stays pure Python (no TensorFlow at
import). The library (`bert_tf2` and the three, scripts included) imports
nothing from `bert_research`, the learners' experiments beside it (analysis,
demos, the research tools' mains): not lazily, not through importlib.

Between the repository's modules (the five packages and the top-level
scripts) there is no import cycle, counting imports inside functions and
the packages an import runs (`import a.b.c` runs a/__init__ and
a/b/__init__). `bert_tf2.common` and `bert_tf2.predict` (the generic
prediction code; each task's predictor is in its package) import no task
package, nor does the generic driver (`bert_tf2.finetune`,
`bert_tf2.runner`), lazy imports inside functions included; the training
side (finetune, runner, each task's job) imports nothing from
`bert_tf2.predict`.
Violations that remain in files being rewritten elsewhere are listed in
`ALLOWED`, each with the change it needs; the tests fail on any other
violation and on any entry that no longer occurs.

Imports of the repository's modules sit at the top of a module, where the
reader and the rules above see them at a glance. The ones still inside
functions are counted, per file, against `FUNCTION_LEVEL_IMPORTS`: a
count may fall (lower it), never rise; a new one needs its reason in a
comment at the import (an optional dependency, start-up time, an import
cycle) and its entry here.
"""

import ast
import glob
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOWER = ("modeling", "tokenization", "optimization")
LIBRARY = ("bert_tf2",) + LOWER
RESEARCH = "bert_research"
PACKAGES = LIBRARY + (RESEARCH,)
TASKS = ("classifier", "ner", "squad", "multiple_choice", "embedding",
         "feature_extraction", "pretraining")

# (importing module, imported module) pairs that break a rule below and are
# left for another change; each says which. Empty this list as they go.
ALLOWED = set()

# {library file: imports of the repository's modules inside its
# functions}, at most (issue 62 item 4: 68 in the library at ce8bc4e, 49
# after the task registry and the jobs' serving imports moved to the top;
# 6 after issue 62's reasons pass, each with its reason at the import;
# bert_research, the experiments beside the library, is not counted).
# Lower an entry when you move one of its imports to the top; delete it at
# 0.
FUNCTION_LEVEL_IMPORT_CEILING = 6
FUNCTION_LEVEL_IMPORTS = {
    "bert_tf2/beam/inference.py": 1,
    "bert_tf2/feature_extraction/pipeline.py": 1,
    "bert_tf2/scripts/create_pretraining_data.py": 1,
    "bert_tf2/scripts/quickstart.py": 1,
    "bert_tf2/squad/flags.py": 2,
}


def _python_files(top, repo=REPO):
  for root, _, files in os.walk(os.path.join(repo, top)):
    for name in sorted(files):
      if name.endswith(".py"):
        yield os.path.join(root, name)


def _imported_modules(path):
  """Every module an import in `path` names, at any depth: import
  statements (absolute) and `importlib.import_module("...")` /
  `__import__("...")` with a constant name."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  names = []
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names += [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0:
      names.append(node.module or "")
      names += ["%s.%s" % (node.module, alias.name) for alias in node.names]
    elif (isinstance(node, ast.Call) and node.args and
          isinstance(node.args[0], ast.Constant) and
          isinstance(node.args[0].value, str) and
          getattr(node.func, "attr", getattr(node.func, "id", None))
          in ("import_module", "__import__")):
      names.append(node.args[0].value)
  return names


def _offenders(tops, forbidden, repo=REPO):
  """{file: [the modules under `forbidden` it imports]} for the .py files
  under each of `tops` (folders of `repo`)."""
  found = {}
  for top in tops:
    for path in _python_files(top, repo):
      bad = [n for n in _imported_modules(path)
             if n == forbidden or n.startswith(forbidden + ".")]
      if bad:
        found[os.path.relpath(path, repo)] = sorted(set(bad))
  return found


def _repository_modules():
  """{dotted module name: path} of the packages and the top-level scripts."""
  modules = {}
  paths = glob.glob(os.path.join(REPO, "*.py"))
  for top in PACKAGES:
    paths += _python_files(top)
  for path in paths:
    name = os.path.relpath(path, REPO)[:-len(".py")].replace(os.sep, ".")
    if name.endswith("__init__"):
      name = name[:-len(".__init__")]
    modules[name] = path
  return modules


def _is_extension(repo, name):
  """A compiled module built from name.c (e.g. pretraining_data._fast)."""
  return os.path.exists(os.path.join(repo, *name.split(".")) + ".c")


def _import_edges(modules, repo=REPO):
  """{module: {imported repository module: first line}} for `modules`.

  Counts every import statement at any depth (lazy ones too),
  `importlib.import_module("...")` with a constant name, relative imports,
  and the packages an import runs: `import a.b.c` from outside `a.b` also
  imports `a.b` and `a` (their __init__), so a package whose __init__
  imports a module that imports back into the package is a cycle.
  """
  def resolve(name):
    while name and name not in modules:
      name = name.rpartition(".")[0]
    return name

  edges = {}
  for module, path in modules.items():
    with open(path, encoding="utf-8") as f:
      tree = ast.parse(f.read(), path)
    package = (module if path.endswith("__init__.py")
               else module.rpartition(".")[0])
    found = {}
    for node in ast.walk(tree):
      if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
      elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
          parent = package
          for _ in range(node.level - 1):
            parent = parent.rpartition(".")[0]
          base = parent + ("." + base if base else "")
        names = []
        for alias in node.names:
          full = base + "." + alias.name
          if _is_extension(repo, full):
            continue
          names.append(full if full in modules else base)
      elif (isinstance(node, ast.Call) and node.args and
            isinstance(node.args[0], ast.Constant) and
            isinstance(node.args[0].value, str) and
            getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")):
        names = [node.args[0].value]
      else:
        continue
      for name in names:
        target = resolve(name)
        if not target or target == module:
          continue
        parts = target.split(".")
        for i in range(1, len(parts) + 1):
          step = ".".join(parts[:i])
          if step in modules and not (
              module == step or module.startswith(step + ".")):
            found.setdefault(step, node.lineno)
    edges[module] = found
  return edges


def _cycles(edges):
  """Strongly connected components of more than one module (Tarjan)."""
  index, low, stack, on_stack, components = {}, {}, [], set(), []

  def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on_stack.add(v)
    for w in sorted(edges.get(v, ())):
      if w not in index:
        visit(w)
        low[v] = min(low[v], low[w])
      elif w in on_stack:
        low[v] = min(low[v], index[w])
    if low[v] == index[v]:
      component = []
      while True:
        w = stack.pop()
        on_stack.discard(w)
        component.append(w)
        if w == v:
          break
      if len(component) > 1:
        components.append(sorted(component))

  limit = sys.getrecursionlimit()
  sys.setrecursionlimit(max(limit, 10 * len(edges) + 100))
  try:
    for v in sorted(edges):
      if v not in index:
        visit(v)
  finally:
    sys.setrecursionlimit(limit)
  return components


def _cycle_pairs(edges):
  """The (importer, imported) pairs inside an import cycle."""
  pairs = set()
  for component in _cycles(edges):
    members = set(component)
    pairs |= {(a, b) for a in component for b in edges[a] if b in members}
  return pairs


def _is_task(module):
  parts = module.split(".")
  return len(parts) >= 2 and parts[0] == "bert_tf2" and parts[1] in TASKS


def _is_generic(module):
  """bert_tf2.common, bert_tf2.predict and the generic driver
  (bert_tf2.finetune, bert_tf2.runner), packages and modules."""
  return module.split(".")[:2] in (
      ["bert_tf2", "common"], ["bert_tf2", "predict"],
      ["bert_tf2", "finetune"], ["bert_tf2", "runner"])


def _is_training_side(module):
  parts = module.split(".")
  return (parts[:2] in (["bert_tf2", "finetune"], ["bert_tf2", "runner"]) or
          (_is_task(module) and parts[-1] == "job"))


def _layering_violations(edges):
  """(importer, imported) pairs that break the layering rules above."""
  found = set()
  for module, imported in edges.items():
    for target in imported:
      if _is_generic(module) and _is_task(target):
        found.add((module, target))
      if _is_training_side(module) and (
          target == "bert_tf2.predict" or
          target.startswith("bert_tf2.predict.")):
        found.add((module, target))
  return found


def _where(edges, pairs):
  return sorted("%s:%d imports %s" % (a, edges[a][b], b) for a, b in pairs)


def test_import_edges_see_lazy_relative_and_package_imports(tmp_path):
  (tmp_path / "pkg" / "sub").mkdir(parents=True)
  files = {
      "pkg/__init__.py": "from pkg import a\n",
      "pkg/a.py": "def f():\n  from pkg.sub import b\n",
      "pkg/sub/__init__.py": "from pkg.sub import b\n",
      "pkg/sub/b.py": "from . import c\nimport importlib\n"
                      "importlib.import_module('pkg.a')\n",
      "pkg/sub/c.py": "from .. import a\n",
  }
  for name, text in files.items():
    (tmp_path / name).write_text(text)
  modules = {n[:-3].replace("/", ".").replace(".__init__", ""):
             str(tmp_path / n) for n in files}
  edges = _import_edges(modules, repo=str(tmp_path))
  assert edges["pkg.a"] == {"pkg.sub": 2, "pkg.sub.b": 2}  # lazy + package
  assert set(edges["pkg.sub.b"]) == {"pkg.sub.c", "pkg.a"}
  assert set(edges["pkg.sub.c"]) == {"pkg.a"}  # relative, two levels up
  assert edges["pkg.sub"] == {"pkg.sub.b": 1}  # not its own package
  assert _cycles(edges) == [["pkg.a", "pkg.sub", "pkg.sub.b", "pkg.sub.c"]]
  del edges["pkg.sub.c"]["pkg.a"], edges["pkg.sub.b"]["pkg.a"]
  assert _cycles(edges) == []


def test_layering_rules_name_the_bad_imports():
  edges = {"bert_tf2.common.x": {"bert_tf2.ner.model": 3},
           "bert_tf2.finetune.records": {"bert_tf2.pretraining": 43},
           "bert_tf2.runner.task": {"bert_tf2.squad.model": 5},
           "bert_tf2.predict.base": {"bert_tf2.squad": 1},
           "bert_tf2.predict": {"bert_tf2.squad.predictor": 1},
           "bert_tf2.squad.predictor": {"bert_tf2.predict.base": 1},
           "bert_tf2.ner.job": {"bert_tf2.predict.assets": 7},
           "bert_tf2.ner.model": {"bert_tf2.common.x": 1}}
  assert _layering_violations(edges) == {
      ("bert_tf2.common.x", "bert_tf2.ner.model"),
      ("bert_tf2.finetune.records", "bert_tf2.pretraining"),
      ("bert_tf2.runner.task", "bert_tf2.squad.model"),
      ("bert_tf2.predict.base", "bert_tf2.squad"),
      ("bert_tf2.predict", "bert_tf2.squad.predictor"),
      ("bert_tf2.ner.job", "bert_tf2.predict.assets")}


def test_no_import_cycles_between_repository_modules():
  edges = _import_edges(_repository_modules())
  assert "bert_tf2.common.preprocessor" in edges
  cycles = _cycle_pairs(edges)
  assert _where(edges, cycles - ALLOWED) == [], _cycles(edges)


def test_generic_code_imports_no_task_and_training_no_predict():
  edges = _import_edges(_repository_modules())
  assert "bert_tf2.predict.text" in edges and "bert_tf2.finetune.driver" in edges
  violations = _layering_violations(edges)
  assert _where(edges, violations - ALLOWED) == []


def test_every_allowed_violation_still_occurs():
  edges = _import_edges(_repository_modules())
  occurring = _cycle_pairs(edges) | _layering_violations(edges)
  assert sorted(ALLOWED - occurring) == [], (
      "these entries of ALLOWED no longer occur: delete them")


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


def test_research_check_sees_every_kind_of_import(tmp_path):
  # The control: a library that imports bert_research in each way a module
  # can, and names that only look like it.
  files = {
      "lib/top.py": "import bert_research\n",
      "lib/sub/frm.py": "from bert_research.analysis import extra\n",
      "lib/sub/lazy.py": ("def f():\n"
                          "  import bert_research.demos.movie_reviews as m\n"
                          "  return m\n"),
      "lib/dyn.py": ("import importlib\n"
                     "importlib.import_module('bert_research.analysis.probe')\n"
                     "__import__('bert_research.scripts')\n"),
      "lib/clean.py": ("import bert_researcher\n"
                       "from bert_tf2 import research\n"
                       "NAME = 'bert_research'\n"),
  }
  for name, text in files.items():
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
  assert _offenders(["lib"], RESEARCH, repo=str(tmp_path)) == {
      os.path.join("lib", "top.py"): ["bert_research"],
      os.path.join("lib", "sub", "frm.py"): [
          "bert_research.analysis", "bert_research.analysis.extra"],
      os.path.join("lib", "sub", "lazy.py"): [
          "bert_research.demos.movie_reviews"],
      os.path.join("lib", "dyn.py"): [
          "bert_research.analysis.probe", "bert_research.scripts"],
  }


def test_library_imports_nothing_from_research():
  walked = {os.path.relpath(p, REPO) for top in LIBRARY
            for p in _python_files(top)}
  # The whole library is walked, its scripts and quick start included.
  assert {os.path.join("bert_tf2", "scripts", "quickstart.py"),
          os.path.join("bert_tf2", "quickstart", "stages.py"),
          os.path.join("bert_tf2", "classifier", "job.py"),
          os.path.join("modeling", "bert_model.py")} <= walked
  assert _offenders(LIBRARY, RESEARCH) == {}
  # Through the import graph too (relative imports, packages an import runs).
  edges = _import_edges(_repository_modules())
  assert "bert_research.analysis.questions.cli" in edges
  assert _where(edges, {
      (a, b) for a, imported in edges.items() for b in imported
      if a.split(".")[0] in LIBRARY and b.split(".")[0] == RESEARCH}) == []


def test_research_lives_outside_the_library():
  # What moved out of bert_tf2 is not left behind (a stale copy would be
  # importable and drift).
  for name in ("analysis", "demos"):
    assert not list(_python_files(os.path.join("bert_tf2", name))), name
  assert os.path.isfile(os.path.join(REPO, RESEARCH, "analysis",
                                     "questions", "__main__.py"))


def _function_level_imports(path):
  """Lines of the import statements of the repository's modules (or
  relative ones) inside a function or lambda of `path`."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  found = []

  def visit(node, inside):
    for child in ast.iter_child_nodes(node):
      if inside and isinstance(child, ast.Import):
        names = [alias.name for alias in child.names]
      elif inside and isinstance(child, ast.ImportFrom):
        names = ["." if child.level else child.module or ""]
      else:
        names = []
      if any(n == "." or n.split(".")[0] in PACKAGES for n in names):
        found.append(child.lineno)
      visit(child, inside or isinstance(
          child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
  visit(tree, False)
  return found


def test_function_level_imports_see_nested_and_relative_ones(tmp_path):
  path = tmp_path / "m.py"
  path.write_text("import bert_tf2\n"
                  "def f():\n  import os\n  from modeling import x\n"
                  "  def g():\n    from . import y\n"
                  "class C:\n  import tokenization\n"
                  "  def h(self):\n    import optimization.adam\n"
                  "k = lambda: __import__('x')\n")
  assert _function_level_imports(str(path)) == [4, 6, 10]


def test_function_level_imports_of_project_modules_do_not_grow():
  counts = {}
  for name, path in _repository_modules().items():
    if name.split(".")[0] == RESEARCH:  # The library's imports only.
      continue
    found = _function_level_imports(path)
    if found:
      counts[os.path.relpath(path, REPO)] = len(found)
  grown = sorted("%s: %d inside functions (at most %d)"
                 % (name, n, FUNCTION_LEVEL_IMPORTS.get(name, 0))
                 for name, n in counts.items()
                 if n > FUNCTION_LEVEL_IMPORTS.get(name, 0))
  assert grown == [], ("move these imports to the top of the module, or "
                       "give the reason at the import and raise the entry")
  assert sum(counts.values()) <= FUNCTION_LEVEL_IMPORT_CEILING
  assert sum(FUNCTION_LEVEL_IMPORTS.values()) <= (
      FUNCTION_LEVEL_IMPORT_CEILING)
