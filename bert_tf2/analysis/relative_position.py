"""Does a position table carry relative position? Measures and a verdict.

A table carries relative position when what relates position i to position
i + k depends on the offset k and not on where i is. Reading absolute
position off each row and subtracting (what a probe regressing b - a from
both rows can do) does not count: independent random rows make every
position identifiable, yet nothing in them depends on the offset. Two
measures only relative structure passes, each per offset k = 1..max_offset:

  * shift map: one affine map per offset, p[i+k] ~ R_k p[i] + c_k, shared by
    all positions, fitted by (ridge) least squares in the whole hidden space
    on the pairs whose start i lies in the training blocks and scored on the pairs starting in the held-out
    blocks (alternating blocks of BLOCK positions, so a held-out pair is not
    sandwiched between training pairs). The score is
    1 - SSE(map) / SSE(best trivial predictor), the trivial predictors being
    "no move" (p[i+k] ~ p[i], which smooth tables win at small k) and the
    mean training target. 1: the offset acts as one map everywhere; <= 0:
    no shared map beats staying put.
  * cosine spread: cos(p[i], p[i+k]) over i. If it depends on the offset
    only, its spread across i (for one k) is small against the spread of
    its mean across k. The ratio within / across is 0 for the sinusoidal
    table and about sqrt(positions) for random rows.

An offset k passes when both do (MAP_R2_MIN, COSINE_RATIO_MAX); the verdict
is "yes" when every offset up to max_offset passes, "partial" (up to offset
K: 1..K all pass) when the first K do, "no" when offset 1 fails. The
thresholds sit halfway between the two controls (sinusoid: 1 and 0; random
rows: <= 0 and >> 1), not tuned on a real model.

Example (the two controls):
  >>> import numpy as np
  >>> pos = np.arange(64)[:, None]
  >>> freq = 10000.0 ** (-np.arange(16)[None] / 16.0)
  >>> sinusoid = np.concatenate([np.sin(pos * freq), np.cos(pos * freq)], 1)
  >>> relative_position_verdict(sinusoid)["verdict"]
  'yes'
  >>> rows = np.random.RandomState(0).normal(size=sinusoid.shape)
  >>> rows *= 4.0 / np.linalg.norm(rows, axis=1, keepdims=True)
  >>> relative_position_verdict(rows)["verdict"]
  'no'
"""

import numpy as np

BLOCK = 8
MAP_R2_MIN = 0.5
COSINE_RATIO_MAX = 0.5
MAX_OFFSET_CAP = 32
RIDGE = 1e-3


def default_max_offset(num_positions):
  """Offsets tested by default: a quarter of the positions, at most 32.

  >>> default_max_offset(127), default_max_offset(511), default_max_offset(40)
  (31, 32, 10)
  """
  return int(max(1, min(MAX_OFFSET_CAP, num_positions // 4)))


def training_starts(num_positions, block=BLOCK):
  """Bool [num_positions]: True for the training blocks (even blocks).

  >>> training_starts(10, block=3).astype(int).tolist()
  [1, 1, 1, 0, 0, 0, 1, 1, 1, 0]
  """
  return (np.arange(num_positions) // block) % 2 == 0


def offset_cosines(table, max_offset):
  """cos(p[i], p[i+k]) for every start i and offset k = 1..max_offset.

  Args:
    table: float [P, H], row i = position i (e.g. positions 1.. only).
    max_offset: int K, 1 <= K < P.

  Returns:
    (mean, within): float [K] each: the mean over i of the cosine at offset
    k = index + 1, and its standard deviation over i.
  """
  table = np.asarray(table, dtype=np.float64)
  norms = np.linalg.norm(table, axis=1, keepdims=True)
  unit = table / np.where(norms > 0, norms, 1.0)
  mean, within = np.zeros(max_offset), np.zeros(max_offset)
  for k in range(1, max_offset + 1):
    cos = np.sum(unit[:-k] * unit[k:], axis=1)
    mean[k - 1], within[k - 1] = cos.mean(), cos.std()
  return mean, within


def cosine_spread_ratio(mean, within):
  """Per offset: spread across i over the spread of the mean across k.

  Args:
    mean, within: float [K] from `offset_cosines`.

  Returns:
    float [K]: within / std(mean) (inf where the mean does not vary).
  """
  across = float(np.std(mean))
  if across == 0.0:
    return np.full(np.shape(within), np.inf)
  return np.asarray(within) / across


def shift_map_r2(table, max_offset, block=BLOCK, ridge=RIDGE):
  """Held-out score of one affine map per offset (see module docstring).

  The map acts on the whole hidden space; a small ridge penalty
  (`ridge` x the mean squared centred row norm) keeps the least squares
  fit defined when there are fewer training pairs than dimensions.

  Args:
    table: float [P, H], row i = position i.
    max_offset: int K.
    block: size of the alternating training / held-out blocks of starts.
    ridge: relative ridge penalty.

  Returns:
    float [K]: 1 - SSE(map) / min(SSE(no move), SSE(mean target)) on the
    held-out pairs of offset k = index + 1 (nan where either side has
    fewer than 2 pairs).
  """
  x = np.asarray(table, dtype=np.float64)
  is_train = training_starts(x.shape[0], block)
  scores = np.full(max_offset, np.nan)
  for k in range(1, max_offset + 1):
    starts = np.arange(x.shape[0] - k)
    train, test = starts[is_train[starts]], starts[~is_train[starts]]
    if train.size < 2 or test.size < 2:
      continue
    x_mean, y_mean = x[train].mean(axis=0), x[train + k].mean(axis=0)
    xc, yc = x[train] - x_mean, x[train + k] - y_mean
    gram = xc @ xc.T  # Dual (kernel) form: [train, train].
    penalty = ridge * np.trace(gram) / train.size
    dual = np.linalg.solve(gram + penalty * np.eye(train.size), yc)
    pred = (x[test] - x_mean) @ xc.T @ dual + y_mean
    target = x[test + k]
    sse = np.sum((target - pred) ** 2)
    trivial = min(np.sum((target - x[test]) ** 2),
                  np.sum((target - y_mean) ** 2))
    scores[k - 1] = 1.0 - sse / trivial if trivial > 0 else np.nan
  return scores


def passing_offsets(map_r2, cosine_ratio):
  """Bool [K]: offset k = index + 1 passes both thresholds (nan fails)."""
  r2 = np.nan_to_num(np.asarray(map_r2, dtype=np.float64), nan=-np.inf)
  ratio = np.nan_to_num(np.asarray(cosine_ratio, dtype=np.float64),
                        nan=np.inf)
  return (r2 >= MAP_R2_MIN) & (ratio <= COSINE_RATIO_MAX)


def verdict_from(passing):
  """("yes" | "partial" | "no", K): K = how many leading offsets pass.

  >>> verdict_from([True, True, False, True])
  ('partial', 2)
  >>> verdict_from([True, True]), verdict_from([False, True])
  (('yes', 2), ('no', 0))
  """
  passing = list(passing)
  k = 0
  while k < len(passing) and passing[k]:
    k += 1
  if k == len(passing):
    return "yes", k
  return ("partial" if k else "no"), k


def verdict_text(rel):
  """One line for a verdict dict, e.g. "partial (offsets 1..6 of 31)"."""
  if rel["verdict"] == "partial":
    return "partial (offsets 1..%d of %d)" % (rel["up_to_offset"],
                                              rel["max_offset"])
  return "%s (offsets 1..%d tested)" % (rel["verdict"], rel["max_offset"])


def relative_position_verdict(table, max_offset=None, first=0):
  """All the measures and the verdict for one table.

  Args:
    table: float [P, H]; rows first.. are analysed (first=1 leaves out
      position 0, always [CLS] in BERT, often an outlier).
    max_offset: int K, default `default_max_offset` of the rows analysed.
    first: int, first position analysed.

  Returns:
    dict: verdict, up_to_offset, max_offset, first_position, block, ridge,
    thresholds, and per offset k = 1..K (lists of K floats, None for nan)
    shift_map_r2, cosine_mean, cosine_within_spread, cosine_spread_ratio;
    cosine_across_spread (float).
  """
  rows = np.asarray(table, dtype=np.float64)[first:]
  n = rows.shape[0]
  k_max = default_max_offset(n) if max_offset is None else int(max_offset)
  if not 1 <= k_max < n:
    raise ValueError("max_offset=%d must be in [1, %d)" % (k_max, n))
  r2 = shift_map_r2(rows, k_max)
  mean, within = offset_cosines(rows, k_max)
  ratio = cosine_spread_ratio(mean, within)
  verdict, up_to = verdict_from(passing_offsets(r2, ratio))

  def floats(a):
    return [float(v) if np.isfinite(v) else None for v in a]

  return {
      "verdict": verdict, "up_to_offset": int(up_to),
      "max_offset": int(k_max), "first_position": int(first),
      "block": BLOCK, "ridge": RIDGE,
      "thresholds": {"shift_map_r2_min": MAP_R2_MIN,
                     "cosine_spread_ratio_max": COSINE_RATIO_MAX},
      "shift_map_r2": floats(r2), "cosine_mean": floats(mean),
      "cosine_within_spread": floats(within),
      "cosine_across_spread": float(np.std(mean)),
      "cosine_spread_ratio": floats(ratio),
  }
