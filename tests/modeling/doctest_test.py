"""The docstring examples of modeling/ run and give what they show."""

import doctest
import importlib

import pytest

MODULES = ["activations", "attention", "bert_model", "checkpoint",
           "checkpoint_writer", "config", "dropout_layer", "embeddings", "heads",
           "export", "hf_import", "hf_names", "inputs", "layers", "losses", "ops",
           "transformer"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
  module = importlib.import_module("modeling." + name)
  result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
  assert result.failed == 0
