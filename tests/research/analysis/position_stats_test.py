"""Tests of analysis.position_stats on tables with known structure."""

import numpy as np
import pytest

from bert_research.analysis import position_stats
from tests.research.analysis import synthetic


def test_sinusoidal_leading_components_are_smooth():
  pca = position_stats.principal_components(synthetic.sinusoidal_table(), 4)
  smooth = position_stats.lag1_autocorrelation(pca.projections)
  assert np.all(smooth > 0.9), smooth


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_leading_components_are_not_smooth(seed):
  pca = position_stats.principal_components(
      synthetic.random_table(seed=seed), 4)
  smooth = position_stats.lag1_autocorrelation(pca.projections)
  assert np.all(np.abs(smooth) < 0.5), smooth


def test_pca_shapes_ratios_and_reconstruction():
  table = synthetic.random_table(40, 12)
  pca = position_stats.principal_components(table, 12)
  assert pca.projections.shape == (40, 12)
  assert pca.components.shape == (12, 12)
  assert np.all(np.diff(pca.explained_variance_ratio) <= 1e-12)
  np.testing.assert_allclose(pca.explained_variance_ratio.sum(), 1.0,
                             rtol=1e-9)
  np.testing.assert_allclose(pca.projections @ pca.components + pca.mean,
                             table, atol=1e-10)
  full = position_stats.full_explained_variance_ratio(table)
  np.testing.assert_allclose(full[:12], pca.explained_variance_ratio,
                             rtol=1e-7)


def test_pca_signs_follow_position():
  table = synthetic.sinusoidal_table()
  pca = position_stats.principal_components(-table, 3)
  index = np.arange(table.shape[0]) - (table.shape[0] - 1) / 2.0
  assert np.all(index @ pca.projections >= 0)


def test_pca_rejects_bad_num_components_and_shapes():
  with pytest.raises(ValueError, match="num_components"):
    position_stats.principal_components(np.zeros((5, 3)), 4)
  with pytest.raises(ValueError, match="hidden_size"):
    position_stats.principal_components(np.zeros(5), 1)
  with pytest.raises(ValueError, match="non-finite"):
    position_stats.value_stats(np.full((3, 3), np.nan))


def test_cosine_similarity_matrix():
  table = synthetic.random_table(20, 8)
  table[3] = 0.0
  sim = position_stats.cosine_similarity_matrix(table)
  assert sim.shape == (20, 20)
  np.testing.assert_allclose(sim, sim.T, atol=1e-12)
  diag = np.diag(sim)
  np.testing.assert_allclose(np.delete(diag, 3), 1.0, atol=1e-12)
  assert diag[3] == 0.0
  assert np.all(np.abs(sim) <= 1.0 + 1e-12)


def test_beyond_sigma_mask_marks_planted_outlier():
  table = synthetic.random_table(100, 50, seed=3)
  table[7, 11] = 0.2
  mask = position_stats.beyond_sigma_mask(table, 2.0)
  assert mask.shape == table.shape and mask.dtype == bool
  assert mask[7, 11]
  # About 4.6% of normal values lie beyond 2 std.
  assert 0.03 < mask.mean() < 0.06


def test_value_stats():
  stats = position_stats.value_stats(synthetic.random_table(200, 100))
  assert abs(stats["std"] - 0.02) < 0.001
  assert abs(stats["excess_kurtosis"]) < 0.2
  assert 0.03 < stats["fraction_beyond_2_std"] < 0.06


def test_init_densities_integrate_to_one():
  x = np.linspace(-0.2, 0.2, 200001)
  dx = x[1] - x[0]
  for pdf in (position_stats.normal_pdf, position_stats.truncated_normal_pdf):
    assert abs(pdf(x, 0.02).sum() * dx - 1.0) < 1e-3
  assert position_stats.truncated_normal_pdf(0.05, 0.02) == 0.0
