"""The relative-position verdict tells the controls apart by construction.

The sinusoidal table is relative by construction (a shift is one rotation
per frequency, and cos(p[i], p[i+k]) depends on k only): "yes". Independent
random rows with the same norms make every position identifiable but relate
no two of them: "no". The untrained initializer (BERT's truncated normal,
std 0.02): "no". On all-MiniLM-L6-v2 the verdict quoted in docs/analysis.md
is what the code computes.
"""

import os
import re

import numpy as np
import pytest

from bert_tf2.analysis import probe
from bert_tf2.analysis import relative_position as rp
from tests.analysis import synthetic

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def same_norm_random_rows(table, seed):
  rows = np.random.RandomState(seed).normal(size=table.shape)
  norms = np.linalg.norm(table, axis=1, keepdims=True)
  return rows * norms / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("shape", [(40, 16), (64, 32), (128, 64),
                                   (512, 768)])
def test_sinusoidal_table_is_relative(shape):
  rel = rp.relative_position_verdict(synthetic.sinusoidal_table(*shape),
                                     first=1)
  assert rel["verdict"] == "yes", rel
  assert min(rel["shift_map_r2"]) > 0.8
  assert max(rel["cosine_spread_ratio"]) < 1e-6


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape", [(64, 32), (128, 64), (128, 384)])
def test_random_rows_of_the_same_norms_are_not_relative(shape, seed):
  table = synthetic.sinusoidal_table(*shape)
  rows = same_norm_random_rows(table, seed)
  np.testing.assert_allclose(np.linalg.norm(rows, axis=1),
                             np.linalg.norm(table, axis=1))
  rel = rp.relative_position_verdict(rows, first=1)
  assert rel["verdict"] == "no", rel
  # Far from the thresholds, not near a tie.
  assert max(rel["shift_map_r2"]) < 0.1
  assert min(rel["cosine_spread_ratio"]) > 3.0


@pytest.mark.parametrize("seed", [0, 1])
def test_untrained_initializer_is_not_relative(seed):
  import modeling  # pylint: disable=g-import-not-at-top
  init = modeling.create_initializer(0.02)
  init.seed = seed
  table = np.asarray(init((512, 384)))
  assert np.abs(table).max() <= 0.04 + 1e-6  # Truncated at 2 std.
  for rows in (table[:128], table):
    rel = rp.relative_position_verdict(rows, first=1)
    assert rel["verdict"] == "no", rel
    assert max(rel["shift_map_r2"]) < 0.1
    assert min(rel["cosine_spread_ratio"]) > 3.0


def test_verdict_from_and_partial():
  assert rp.verdict_from([True] * 3) == ("yes", 3)
  assert rp.verdict_from([True, False, True]) == ("partial", 1)
  assert rp.verdict_from([False, True, True]) == ("no", 0)
  passing = rp.passing_offsets([0.9, 0.9, np.nan, 0.9], [0.1, 0.6, 0.1, 0.1])
  assert passing.tolist() == [True, False, False, True]
  rel = {"verdict": "partial", "up_to_offset": 6, "max_offset": 31}
  assert rp.verdict_text(rel) == "partial (offsets 1..6 of 31)"


def test_bad_max_offset():
  with pytest.raises(ValueError, match="max_offset=40"):
    rp.relative_position_verdict(np.zeros((40, 4)), max_offset=40)


@pytest.mark.parametrize("seed", [0, 1])
def test_linear_relative_probe_is_the_difference_of_absolutes(seed):
  # The confound the verdict avoids: on held-out positions the linear probe
  # of b - a from both rows is exactly "guess each absolute position and
  # subtract", even on random rows.
  features = synthetic.random_table(60, 6, seed=seed)
  res = probe.relative_position_probe(features, split="positions", seed=seed)
  assert res["linear"]["mae"] == pytest.approx(
      res["difference_of_absolutes"]["mae"], rel=1e-6)
  assert res["absolute_linear"]["mae"] > 0


def minilm_position_table():
  from safetensors.numpy import load_file  # pylint: disable=g-import-not-at-top
  from tests.pretraining_data import corpus  # pylint: disable=g-import-not-at-top
  path = os.path.join(os.path.dirname(corpus.minilm_vocab()),
                      "model.safetensors")
  return load_file(path)["embeddings.position_embeddings.weight"]


def test_minilm_verdict_is_the_one_docs_quote():
  with open(os.path.join(REPO, "docs", "analysis.md"), encoding="utf-8") as f:
    docs = f.read()
  quoted = re.search(r"relative-position verdict on positions 0\.\.127: "
                     r"\*\*([^*]+)\*\*", docs)
  assert quoted, "docs/analysis.md quotes no MiniLM verdict"
  rel = rp.relative_position_verdict(minilm_position_table()[:128], first=1)
  assert rp.verdict_text(rel) == quoted.group(1)
