"""The docstring examples of every module run and show what they print.

Walks modeling, tokenization, optimization, every bert_tf2 package and
bert_research (the experiments beside the library); examples that need
files or models the tests do not have are marked `# doctest: +SKIP` in
their module. bert_tf2.scripts and bert_research.scripts are left out: their
modules define the scripts' flags on absl's global FLAGS when imported
(several define the same names), and hold no examples (checked below).
"""

import doctest
import importlib
import os
import pkgutil

import pytest

PACKAGES = ("modeling", "tokenization", "optimization", "bert_tf2",
            "bert_research")
SCRIPTS = ("bert_tf2.scripts", "bert_research.scripts")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _modules():
  names = []
  for package in PACKAGES:
    names.append(package)
    path = [os.path.join(REPO, *package.split("."))]
    for info in pkgutil.walk_packages(path, prefix=package + "."):
      if not info.name.startswith(SCRIPTS):
        names.append(info.name)
  return sorted(names)


MODULES = _modules()


def test_every_package_is_walked():
  assert {"modeling.bert_model", "tokenization.full", "optimization.base",
          "bert_tf2.runner.estimator", "bert_tf2.squad.postprocess",
          "bert_tf2.pretraining_data.stages", "bert_tf2.quickstart.stages",
          "bert_research.analysis.relative_position",
          "bert_research.analysis.questions.flops"} <= set(MODULES)
  for package in SCRIPTS:
    scripts = os.path.join(REPO, *package.split("."))
    for name in os.listdir(scripts):
      if name.endswith(".py"):
        with open(os.path.join(scripts, name), encoding="utf-8") as f:
          assert ">>>" not in f.read(), name


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
  module = importlib.import_module(name)
  result = doctest.testmod(module, optionflags=doctest.ELLIPSIS,
                           verbose=False)
  assert result.failed == 0, "%d of %d examples failed in %s" % (
      result.failed, result.attempted, name)
