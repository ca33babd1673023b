"""Relative-position probe: can `pos_b - pos_a` be read off two embeddings?

For pairs of positions (a, b) the features are the two embeddings projected
on the leading principal components, concatenated, and the target is
`b - a`. A linear model and a gradient-boosted tree model (scikit-learn) are
fitted on 60% of the data and scored on the other 40% by mean squared error
and mean absolute error, against a baseline that always predicts the mean
training target.

Two splits are supported:
  * "pairs": the pairs are split 60/40 at random. The same positions occur
    in train and test pairs, so a flexible model can memorise each
    position's (arbitrary) embedding: even random embeddings score well.
  * "positions": the positions are split 60/40 at random; training pairs
    use only training positions and test pairs only held-out positions
    (mixed pairs are dropped). Only structure that generalises to unseen
    positions scores well; random embeddings stay at the baseline.

Example:
  >>> import numpy as np
  >>> pos = np.arange(32)[:, None]
  >>> feats = np.concatenate([np.sin(pos / 10.0), np.cos(pos / 10.0)], 1)
  >>> r = relative_position_probe(feats, split="positions", seed=0)
  >>> r["linear"]["mse"] < r["baseline"]["mse"]
  True
"""

import numpy as np

SPLITS = ("pairs", "positions")
TRAIN_FRACTION = 0.6


def make_pairs(num_positions, max_pairs=None, seed=0):
  """All ordered position pairs (a, b), optionally subsampled.

  Args:
    num_positions: int P.
    max_pairs: int or None; if P*P exceeds it, a random subset of this many
      pairs (drawn with `seed`) is returned.
    seed: int.

  Returns:
    (a, b): two int arrays of shape [num_pairs].
  """
  a, b = np.meshgrid(np.arange(num_positions), np.arange(num_positions),
                     indexing="ij")
  a, b = a.ravel(), b.ravel()
  if max_pairs is not None and a.size > max_pairs:
    keep = np.sort(np.random.RandomState(seed).choice(
        a.size, max_pairs, replace=False))
    a, b = a[keep], b[keep]
  return a, b


def split_pairs(a, b, num_positions, split="positions", seed=0):
  """Splits pairs into train and test index arrays (see module docstring).

  Args:
    a, b: int arrays [num_pairs] of positions in [0, num_positions).
    num_positions: int P.
    split: "pairs" or "positions".
    seed: int.

  Returns:
    (train_index, test_index): int arrays into the pair arrays.
  """
  if split == "pairs":
    order = np.random.RandomState(seed).permutation(a.size)
    n_train = int(round(TRAIN_FRACTION * a.size))
    return np.sort(order[:n_train]), np.sort(order[n_train:])
  if split == "positions":
    is_train = training_positions(num_positions, seed)
    return (np.where(is_train[a] & is_train[b])[0],
            np.where(~is_train[a] & ~is_train[b])[0])
  raise ValueError("split must be one of %s, got %r" % (SPLITS, split))


def training_positions(num_positions, seed=0):
  """Bool [num_positions]: the random TRAIN_FRACTION of positions kept for
  training by the "positions" split (drawn with `seed`)."""
  order = np.random.RandomState(seed).permutation(num_positions)
  is_train = np.zeros(num_positions, dtype=bool)
  is_train[order[:int(round(TRAIN_FRACTION * num_positions))]] = True
  return is_train


def _scores(y_true, y_pred):
  err = y_true - y_pred
  return {"mse": float(np.mean(err ** 2)), "mae": float(np.mean(np.abs(err)))}


def relative_position_probe(features, split="positions", seed=0,
                            max_pairs=20000, positions=None):
  """Fits and scores the probe.

  Args:
    features: float array [num_positions, k]: per-position features, e.g.
      the leading k PCA projections (row i belongs to position positions[i]).
    split: "pairs" or "positions".
    seed: int; fixes pair sampling, the split and the boosted trees.
    max_pairs: int or None, cap on the number of pairs (see make_pairs).
    positions: int array [num_positions] of the rows' positions, default
      0..num_positions-1 (targets are differences of these).

  Returns:
    dict: split, num_train, num_test, and for "baseline", "linear",
    "gradient_boosting" a dict {"mse": float, "mae": float} on the test set.
    The "positions" split adds the absolute-position control on the same
    features: "absolute_linear" (a linear model of the position from one
    row, fitted on the training positions, scored on the held-out ones)
    and "difference_of_absolutes" (that model's prediction for b minus its
    prediction for a, scored on the test pairs). A relative probe no better
    than the difference of absolutes shows absolute position, not relative.
  """
  from sklearn.ensemble import GradientBoostingRegressor  # Optional deps.
  from sklearn.linear_model import LinearRegression
  features = np.asarray(features, dtype=np.float64)
  if features.ndim != 2 or features.shape[0] < 5:
    raise ValueError("features must be [num_positions >= 5, k], got shape %s"
                     % (features.shape,))
  n = features.shape[0]
  positions = np.arange(n) if positions is None else np.asarray(positions)
  a, b = make_pairs(n, max_pairs=max_pairs, seed=seed)
  train, test = split_pairs(a, b, n, split=split, seed=seed)
  x = np.concatenate([features[a], features[b]], axis=1)
  y = (positions[b] - positions[a]).astype(np.float64)
  result = {"split": split, "num_train": int(train.size),
            "num_test": int(test.size)}
  result["baseline"] = _scores(y[test], np.full(test.size, y[train].mean()))
  models = {
      "linear": LinearRegression(),
      "gradient_boosting": GradientBoostingRegressor(random_state=seed),
  }
  for name, model in models.items():
    model.fit(x[train], y[train])
    result[name] = _scores(y[test], model.predict(x[test]))
  if split == "positions":
    is_train = training_positions(n, seed)
    absolute = LinearRegression().fit(features[is_train],
                                      positions[is_train])
    guess = absolute.predict(features)
    result["absolute_linear"] = _scores(positions[~is_train],
                                        guess[~is_train])
    result["difference_of_absolutes"] = _scores(y[test],
                                                guess[b[test]] - guess[a[test]])
  return result
