"""Statistics of a position-embedding table: PCA, similarity, outliers.

All functions are pure numpy (plus scikit-learn's PCA) and take the table as
a float array of shape [num_positions, hidden_size], row p being the
embedding added at position p.

Example:
  >>> import numpy as np
  >>> table = np.random.RandomState(0).normal(0, 0.02, (64, 32))
  >>> pca = principal_components(table, num_components=4)
  >>> pca.projections.shape, pca.components.shape
  ((64, 4), (4, 32))
  >>> cosine_similarity_matrix(table).shape
  (64, 64)
"""

import collections
import math

import numpy as np

PCAResult = collections.namedtuple(
    "PCAResult",
    ["explained_variance_ratio",  # float [num_components]
     "components",                # float [num_components, hidden_size]
     "projections",               # float [num_positions, num_components]
     "mean"])                     # float [hidden_size]


def _check_table(table):
  table = np.asarray(table, dtype=np.float64)
  if table.ndim != 2:
    raise ValueError("expected a [num_positions, hidden_size] table, got "
                     "shape %s" % (table.shape,))
  if not np.all(np.isfinite(table)):
    raise ValueError("table has non-finite values (NaN or Inf)")
  return table


def value_stats(table):
  """Summary statistics of all values of the table.

  Returns:
    dict with float mean, std, min, max, excess kurtosis, and the fraction
    of values more than 2 standard deviations from the mean.
  """
  x = _check_table(table).ravel()
  mean, std = float(x.mean()), float(x.std())
  z = (x - mean) / std if std > 0 else np.zeros_like(x)
  return {
      "mean": mean, "std": std, "min": float(x.min()), "max": float(x.max()),
      "excess_kurtosis": float(np.mean(z ** 4) - 3.0),
      "fraction_beyond_2_std": float(np.mean(np.abs(z) > 2.0)),
  }


def beyond_sigma_mask(table, num_sigma=2.0):
  """Marks values more than `num_sigma` standard deviations from the mean.

  Mean and standard deviation are those of all values of the table.

  Returns:
    bool array of shape [num_positions, hidden_size].
  """
  table = _check_table(table)
  return np.abs(table - table.mean()) > num_sigma * table.std()


def principal_components(table, num_components):
  """PCA over positions (rows), with deterministic signs.

  Each component's sign is chosen so that its projection correlates
  non-negatively with the position index, so curves over position are
  stable across runs and checkpoints.

  Args:
    table: float array [num_positions, hidden_size].
    num_components: int, 1 <= num_components <= min(num_positions,
      hidden_size).

  Returns:
    PCAResult (see field comments above).
  """
  from sklearn.decomposition import PCA  # Deferred: optional dependency.
  table = _check_table(table)
  limit = min(table.shape)
  if not 1 <= num_components <= limit:
    raise ValueError("num_components=%d must be in [1, %d] for a table of "
                     "shape %s" % (num_components, limit, table.shape))
  pca = PCA(n_components=num_components, svd_solver="full")
  projections = pca.fit_transform(table)
  components = pca.components_.copy()
  index = np.arange(table.shape[0], dtype=np.float64)
  for k in range(num_components):
    if np.dot(projections[:, k], index - index.mean()) < 0:
      projections[:, k] *= -1.0
      components[k] *= -1.0
  return PCAResult(pca.explained_variance_ratio_.copy(), components,
                   projections, pca.mean_.copy())


def full_explained_variance_ratio(table):
  """Explained-variance ratio of every principal component.

  Returns:
    float array [min(num_positions, hidden_size)], descending, sums to 1.
  """
  table = _check_table(table)
  centered = table - table.mean(axis=0)
  s = np.linalg.svd(centered, compute_uv=False)
  var = s ** 2
  total = var.sum()
  return var / total if total > 0 else var


def cosine_similarity_matrix(table):
  """Cosine similarity between every pair of positions.

  Returns:
    float array [num_positions, num_positions], 1 on the diagonal (0 for an
    all-zero row).
  """
  table = _check_table(table)
  norms = np.linalg.norm(table, axis=1, keepdims=True)
  unit = table / np.where(norms > 0, norms, 1.0)
  return unit @ unit.T


def lag1_autocorrelation(curves):
  """Smoothness of curves over position: lag-1 autocorrelation.

  Args:
    curves: float array [num_positions, num_curves] (e.g. PCA projections).

  Returns:
    float array [num_curves]: ~1 for smooth curves, ~0 for white noise.
  """
  c = np.asarray(curves, dtype=np.float64)
  c = c - c.mean(axis=0)
  denom = np.sum(c * c, axis=0)
  num = np.sum(c[1:] * c[:-1], axis=0)
  return np.where(denom > 0, num / np.where(denom > 0, denom, 1.0), 0.0)


def normal_pdf(x, stddev):
  """Density of N(0, stddev^2) at x (numpy array)."""
  x = np.asarray(x, dtype=np.float64)
  return np.exp(-0.5 * (x / stddev) ** 2) / (stddev * math.sqrt(2 * math.pi))


def truncated_normal_pdf(x, stddev):
  """Density of N(0, stddev^2) truncated to [-2 stddev, 2 stddev].

  This is the distribution `tf.truncated_normal_initializer(stddev)` draws
  from, the initializer of BERT's embedding tables.
  """
  x = np.asarray(x, dtype=np.float64)
  mass = math.erf(2.0 / math.sqrt(2.0))  # P(|z| <= 2)
  return np.where(np.abs(x) <= 2 * stddev, normal_pdf(x, stddev) / mass, 0.0)
