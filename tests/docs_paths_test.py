"""Every file path the docs name exists (and every test they name is defined).

Checked in README.md, docs/*.md and docs/results/*.md:
  - paths starting with tests/, bert_tf2/, bert_research/, bench/, modeling/,
    tokenization/ or tools/ (a generated output directory passes if .gitignore lists it);
  - `<dir>/<name>_test.py`, with or without tests/ (the test tables of
    docs/reliability.md and docs/testing.md write tests-relative paths),
    and `<path>::<test_name>` names a `def test_name` in that file.
"""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md"] + sorted(
    os.path.join(folder, f)
    for folder in ("docs", os.path.join("docs", "results"))
    for f in os.listdir(os.path.join(ROOT, folder)) if f.endswith(".md"))
_PREFIXED = re.compile(
    r"(?<![\w/.-])((?:tests|bert_tf2|bert_research|bench|modeling|"
    r"tokenization|tools)/"
    r"[\w./-]*[\w/])")
_TEST_REF = re.compile(r"(?<![\w/.*-])(\w+/[\w/]*_test\.py)(?:::(\w+))?")


def _ignored():
  with open(os.path.join(ROOT, ".gitignore")) as f:
    return {line.strip().rstrip("/") for line in f
            if line.strip() and not line.startswith("#")}


def _test_file(path):
  for candidate in (path, os.path.join("tests", path)):
    if os.path.isfile(os.path.join(ROOT, candidate)):
      return candidate
  return None


def missing_paths(text, ignored=()):
  """Paths named in `text` that do not exist under ROOT (see module doc)."""
  missing = []
  for path in _PREFIXED.findall(text):
    path = path.rstrip(".")
    if ("*" in path or path.rstrip("/") in ignored or
        path.endswith("_test.py")):  # Test files: below.
      continue
    if not os.path.exists(os.path.join(ROOT, path)):
      missing.append(path)
  for path, name in _TEST_REF.findall(text):
    found = _test_file(path)
    if found is None:
      missing.append(path)
    elif name:
      with open(os.path.join(ROOT, found)) as f:
        if not re.search(r"^\s*def %s\(" % re.escape(name), f.read(), re.M):
          missing.append("%s::%s" % (path, name))
  return sorted(set(missing))


@pytest.mark.parametrize("doc", DOCS)
def test_every_named_path_exists(doc):
  with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
    assert missing_paths(f.read(), _ignored()) == [], doc


def test_a_wrong_path_is_reported():
  text = ("see `tests/predict/predict_test.py`, `bert_tf2/runner/no_such.py`, "
          "`bert_research/analysis/probe.py`, `bert_research/gone.py`, "
          "`runner/preemption_test.py::test_not_there` and "
          "`classifier/gone_test.py`.")
  assert missing_paths(text) == ["bert_research/gone.py",
                                 "bert_tf2/runner/no_such.py",
                                 "classifier/gone_test.py",
                                 "runner/preemption_test.py::test_not_there"]


def test_every_results_page_is_linked_from_a_reference_page():
  results = [d for d in DOCS if os.path.dirname(d).endswith("results")]
  assert os.path.join("docs", "results", "ner_peoples_daily.md") in results
  pages = ""
  for doc in DOCS:
    if doc not in results:
      with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        pages += f.read()
  unlinked = [d for d in results
              if "](results/%s)" % os.path.basename(d) not in pages]
  assert unlinked == []
