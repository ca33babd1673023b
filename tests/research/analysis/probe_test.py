"""Tests of the relative-position probe (analysis.probe)."""

import numpy as np
import pytest

from bert_research.analysis import position_stats
from bert_research.analysis import probe
from tests.research.analysis import synthetic


def _features(table, k=8):
  return position_stats.principal_components(table, k).projections


def _ratios(result):
  base = result["baseline"]["mse"]
  return {m: result[m]["mse"] / base for m in ("linear", "gradient_boosting")}


@pytest.mark.parametrize("split", probe.SPLITS)
def test_sinusoidal_probe_far_better_than_baseline(split):
  result = probe.relative_position_probe(
      _features(synthetic.sinusoidal_table()), split=split, seed=0)
  for model, ratio in _ratios(result).items():
    assert ratio < 0.1, (model, ratio)
  assert result["linear"]["mae"] < 0.5 * result["baseline"]["mae"]


@pytest.mark.parametrize("seed", [0, 1])
def test_random_embeddings_stay_at_baseline_on_held_out_positions(seed):
  result = probe.relative_position_probe(
      _features(synthetic.random_table(seed=seed)), split="positions",
      seed=seed)
  for model, ratio in _ratios(result).items():
    assert ratio > 0.8, (model, ratio)


def test_pair_split_lets_trees_memorise_random_positions():
  # The documented caveat of split="pairs": positions are shared between
  # train and test, so boosted trees learn each random embedding's position,
  # while the linear model cannot.
  result = probe.relative_position_probe(
      _features(synthetic.random_table(seed=0)), split="pairs", seed=0)
  ratios = _ratios(result)
  assert ratios["linear"] > 0.6
  assert ratios["gradient_boosting"] < 0.5


def test_split_pairs_sizes_and_disjointness():
  a, b = probe.make_pairs(50)
  assert a.size == 2500
  train, test = probe.split_pairs(a, b, 50, split="pairs", seed=1)
  assert train.size == 1500 and test.size == 1000
  assert not set(train) & set(test)
  train, test = probe.split_pairs(a, b, 50, split="positions", seed=1)
  train_pos = set(a[train]) | set(b[train])
  test_pos = set(a[test]) | set(b[test])
  assert len(train_pos) == 30 and len(test_pos) == 20
  assert not train_pos & test_pos
  with pytest.raises(ValueError, match="split"):
    probe.split_pairs(a, b, 50, split="random")


def test_make_pairs_subsamples_deterministically():
  a1, b1 = probe.make_pairs(100, max_pairs=500, seed=3)
  a2, b2 = probe.make_pairs(100, max_pairs=500, seed=3)
  assert a1.size == 500
  np.testing.assert_array_equal(a1, a2)
  np.testing.assert_array_equal(b1, b2)
  assert len(set(zip(a1, b1))) == 500


def test_probe_is_deterministic_and_uses_given_positions():
  feats = _features(synthetic.sinusoidal_table(40, 16), 4)
  r1 = probe.relative_position_probe(feats, seed=5, positions=np.arange(1, 41))
  r2 = probe.relative_position_probe(feats, seed=5, positions=np.arange(1, 41))
  assert r1 == r2
  with pytest.raises(ValueError, match="features"):
    probe.relative_position_probe(feats[:3])
