"""The interpolation measures of relative position (the verdict before
issue 66), kept for the record and as the control suite's counter-example.

Two measures, each per offset k = 1..max_offset:

  * shift map: one affine map per offset, p[i+k] ~ R_k p[i] + c_k, fitted
    by ridge least squares in the whole hidden space and scored on
    held-out blocks of BLOCK consecutive starts (exact leave-one-block-out,
    in closed form): 1 - SSE(map) / SSE(better of "no move" and the mean),
    minus the same score on the rows shuffled (the map skill).
  * cosine spread: the spread of cos(p[i], p[i+k]) over i against the
    spread of its mean across k.

Why they no longer decide the verdict (docs/analysis.md): the held-out
blocks lie between training starts, so a table that is merely smooth in
position (a sinusoid with phase sqrt(i) or i^2) is predicted by
interpolation and reads "partial" like a trained model; with fewer rows
than dimensions a linear map can memorise; and a relative table that is not
smooth (p[i] = R^i p[0], R a random rotation) reads "no" on 128 rows.
`interpolation_verdict` is that old verdict, unchanged.

Example (the sinusoid passes, but so does a smooth non-relative table):
  >>> import numpy as np
  >>> pos = np.arange(64)[:, None]
  >>> freq = 10000.0 ** (-np.arange(16)[None] / 16.0)
  >>> sinusoid = np.concatenate([np.sin(pos * freq), np.cos(pos * freq)], 1)
  >>> interpolation_verdict(sinusoid)["verdict"]
  'yes'
"""

import contextlib

import numpy as np

BLOCK = 8
MAP_SKILL_MIN = 0.5
COSINE_RATIO_MAX = 0.5
MAX_OFFSET_CAP = 32
RIDGES = (1e-8, 1e-5, 1e-2)
SHUFFLE_SEED = 0


def default_max_offset(num_positions):
  """Offsets tested by default: a quarter of the positions, at most 32.

  >>> default_max_offset(127), default_max_offset(511), default_max_offset(40)
  (31, 32, 10)
  """
  return int(max(1, min(MAX_OFFSET_CAP, num_positions // 4)))


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


def block_cv_sse(x, targets, ridges, block=BLOCK):
  """Leave-one-block-out squared error of ridge maps y ~ x W + c.

  Each block of `block` consecutive rows is predicted by the map fitted on
  all other rows, in closed form: for a linear smoother with hat matrix
  S = X (X'X + lam)^-1 X', the held-out residuals of block b are
  (I - S_bb)^-1 r_b (r: the full fit's residuals); in the dual (kernel)
  form, with A = (XX' + lam)^-1, they are A_bb^-1 (A y)_b. The intercept is
  a constant feature large enough that its penalty is negligible. One
  eigendecomposition serves every penalty and every target.

  Args:
    x: float [n, H] inputs, n a multiple of `block`.
    targets: iterable of float [n, H'] targets (one map each).
    ridges: relative penalties: lam = ridge x mean squared centred row norm
      of x.
    block: rows per held-out block.

  Returns:
    float [len(targets), len(ridges)]: the summed held-out squared error.
  """
  return block_cv_sse_of_grams(x, (y @ y.T for y in targets), ridges, block)


def block_cv_sse_of_grams(x, grams, ridges, block=BLOCK):
  """`block_cv_sse` from each target's Gram matrix y y' [n, n].

  The held-out residuals are linear in y, e = G y with G [n, n] per
  penalty (the blocks' (I - S_bb)^-1 or A_bb^-1 applied to the full fit's
  residual operator), so the squared error is sum(G'G * y y'): G'G is made
  once per penalty, and each target costs one elementwise [n, n] product.
  Shift maps pass the blocks of one table's Gram matrix, x x' computed once
  (`shift_map_r2`), instead of a product per target and penalty (about
  4-6x faster for BERT-size tables; the verdicts of a 512 x 768 sinusoid,
  random and noisy table and of all-MiniLM-L6-v2 came out the same, every
  measure within 1e-10 relative).

  Args:
    x: float [n, H] inputs, n a multiple of `block`.
    grams: iterable of float [n, n], y y' of each target y.
    ridges, block: as `block_cv_sse`.

  Returns:
    float [len(grams), len(ridges)].
  """
  n = x.shape[0]
  if n % block:
    raise ValueError("%d rows are not whole blocks of %d" % (n, block))
  scale = float(np.mean(np.sum((x - x.mean(axis=0)) ** 2, axis=1)))
  scale = scale if scale > 0 else 1.0
  xa = np.concatenate([x, np.full((n, 1), 10.0 * np.sqrt(scale))], axis=1)
  dual = xa.shape[1] >= n
  s, u = np.linalg.eigh(xa @ xa.T if dual else xa.T @ xa)
  s = np.maximum(s, 0.0)
  # The rows seen through the decomposition: [n, m], and in blocks.
  flat = u if dual else xa @ u
  rows = flat.reshape(n // block, block, -1)
  errors = []  # Per penalty, G'G.
  for ridge in ridges:
    w = 1.0 / (s + ridge * scale)
    # The [n / block, block, block] matrices that turn a block's residuals
    # (dual: (A y)_b) into its held-out residuals.
    local = np.matmul(rows * w, rows.transpose(0, 2, 1))
    fix = np.linalg.inv(local if dual else np.eye(block) - local)
    # The full fit's residual operator: dual A, primal I - S.
    full = (flat * w) @ flat.T
    residual = full if dual else np.eye(n) - full
    g = np.matmul(fix, residual.reshape(n // block, block, n)).reshape(n, n)
    errors.append(g.T @ g)
  return np.array([[float(np.sum(e * gram)) for e in errors]
                   for gram in grams])


def trivial_sse(x, y, block=BLOCK):
  """Held-out error of the better trivial predictor of y from x.

  "No move" predicts y ~ x; "mean" predicts each block by the mean of the
  other blocks' targets.

  Returns:
    float: min(SSE no move, SSE mean).
  """
  n = y.shape[0]
  per_block = y.reshape(n // block, block, -1)
  rest = (y.sum(axis=0) - per_block.sum(axis=1)) / (n - block)
  mean_sse = float(np.sum((per_block - rest[:, None]) ** 2))
  return min(float(np.sum((y - x) ** 2)), mean_sse)


def row_space_coordinates(table):
  """The rows in an orthonormal basis of their span (an isometry).

  Distances, inner products and every least-squares map between rows are
  unchanged; a table wider than it is long gets min(P, H) columns, which
  makes the maps cheaper.

  Args:
    table: float [P, H].

  Returns:
    float [P, min(P, H)] (the table itself when H <= P).
  """
  x = np.asarray(table, dtype=np.float64)
  if x.shape[1] <= x.shape[0]:
    return x
  _, _, vt = np.linalg.svd(x, full_matrices=False)
  return x @ vt.T


def shift_map_r2(table, max_offset, block=BLOCK, ridges=RIDGES):
  """Held-out score of one affine map per offset (see module docstring).

  Every offset is fitted and scored on the same starts 0..n-1, n the
  largest multiple of `block` with n + max_offset <= P.

  Args:
    table: float [P, H], row i = position i.
    max_offset: int K.
    block: starts per held-out block.
    ridges: relative ridge penalties tried; the one with the smallest
      held-out error is kept, per offset.

  Returns:
    (scores, ridge): float [K] each: 1 - SSE(map) / SSE(better trivial
    predictor) on the held-out starts of offset k = index + 1, and the
    penalty kept (all nan when there are fewer than 2 blocks of starts).
  """
  x = row_space_coordinates(table)
  n = (x.shape[0] - max_offset) // block * block
  if n < 2 * block:
    return np.full(max_offset, np.nan), np.full(max_offset, np.nan)
  ks = range(1, max_offset + 1)
  gram = x @ x.T  # Every target's y y' is a block of it.
  sse = block_cv_sse_of_grams(x[:n], (gram[k:k + n, k:k + n] for k in ks),
                              ridges, block)
  trivial = np.array([trivial_sse(x[:n], x[k:k + n], block) for k in ks])
  best = np.argmin(sse, axis=1)
  kept = sse[np.arange(max_offset), best]
  scores = np.where(trivial > 0, 1.0 - kept / np.where(trivial > 0, trivial,
                                                       1.0), np.nan)
  return scores, np.asarray(ridges, dtype=np.float64)[best]


def shuffled_rows(table, seed=SHUFFLE_SEED):
  """The table's rows in a random order (seeded): independent rows."""
  table = np.asarray(table)
  return table[np.random.RandomState(seed).permutation(table.shape[0])]


def map_skill(scores, shuffled):
  """Per offset: the map score minus the shuffled-rows score when > 0.

  >>> map_skill([0.9, 0.4], [-0.1, 0.2]).tolist()
  [0.9, 0.2]
  """
  return (np.asarray(scores, dtype=np.float64)
          - np.maximum(np.asarray(shuffled, dtype=np.float64), 0.0))


def passing_offsets(skill, cosine_ratio):
  """Bool [K]: offset k = index + 1 passes both thresholds (nan fails)."""
  skill = np.nan_to_num(np.asarray(skill, dtype=np.float64), nan=-np.inf)
  ratio = np.nan_to_num(np.asarray(cosine_ratio, dtype=np.float64),
                        nan=np.inf)
  return (skill >= MAP_SKILL_MIN) & (ratio <= COSINE_RATIO_MAX)


def verdict_from(passing):
  """The old rule: ("yes" | "partial" | "no", K), K leading offsets passing.

  "yes": every offset passes; "no": none does; "partial" otherwise.

  >>> verdict_from([True, True, False, True])
  ('partial', 2)
  >>> verdict_from([True, True]), verdict_from([False, True])
  (('yes', 2), ('partial', 0))
  >>> verdict_from([False, False])
  ('no', 0)
  """
  passing = list(passing)
  k = leading_passes(passing)
  if k == len(passing):
    return "yes", k
  return ("partial" if any(passing) else "no"), k


def leading_passes(passing):
  """How many of `passing` (booleans, from offset 1 up) pass before the
  first that fails.

  >>> leading_passes([True, True, False, True]), leading_passes([])
  (2, 0)
  """
  return next((i for i, ok in enumerate(passing) if not ok), len(passing))


def one_blas_thread():
  """A context with BLAS on one thread (threadpoolctl, scikit-learn's
  dependency, when installed). The maps are hundreds of small products:
  on 2 busy cores a multi-threaded BLAS spends its time waiting (measured:
  5 s against 0.1 s for a 128 x 384 table)."""
  try:
    import threadpoolctl  # pylint: disable=g-import-not-at-top
  except ImportError:
    return contextlib.nullcontext()
  return threadpoolctl.threadpool_limits(1, user_api="blas")


def interpolation_verdict(table, max_offset=None, first=0):
  """The old (interpolation) measures and verdict for one table.

  Args:
    table: float [P, H]; rows first.. are analysed (first=1 leaves out
      position 0, always [CLS] in BERT, often an outlier).
    max_offset: int K, default `default_max_offset` of the rows analysed.
    first: int, first position analysed.

  Returns:
    dict: verdict, up_to_offset (leading offsets passing), passing (the
    offsets passing), share_passing, mean_map_skill (the map skill clipped
    to [0, 1], averaged over offsets: a graded score), max_offset,
    first_position, block, ridges, shuffle_seed, thresholds, and per offset
    k = 1..K (lists of K floats, None for nan) shift_map_r2 (held-out
    score), shift_map_r2_shuffled (the same on shuffled rows), map_skill,
    ridge (the penalty kept), cosine_mean, cosine_within_spread,
    cosine_spread_ratio; cosine_across_spread (float).
  """
  rows = np.asarray(table, dtype=np.float64)[first:]
  n = rows.shape[0]
  k_max = default_max_offset(n) if max_offset is None else int(max_offset)
  if not 1 <= k_max < n:
    raise ValueError("max_offset=%d must be in [1, %d)" % (k_max, n))
  with one_blas_thread():
    r2, ridge = shift_map_r2(rows, k_max)
    r2_shuffled, _ = shift_map_r2(shuffled_rows(rows), k_max)
  skill = map_skill(r2, r2_shuffled)
  mean, within = offset_cosines(rows, k_max)
  ratio = cosine_spread_ratio(mean, within)
  passing = passing_offsets(skill, ratio)
  verdict, up_to = verdict_from(passing)

  def floats(a):
    return [float(v) if np.isfinite(v) else None for v in a]

  return {
      "verdict": verdict, "up_to_offset": int(up_to),
      "passing": [int(k) + 1 for k in np.nonzero(passing)[0]],
      "share_passing": float(np.mean(passing)),
      "mean_map_skill": float(np.mean(np.clip(
          np.nan_to_num(skill, nan=0.0), 0.0, 1.0))),
      "max_offset": int(k_max), "first_position": int(first),
      "block": BLOCK, "ridges": list(RIDGES), "shuffle_seed": SHUFFLE_SEED,
      "thresholds": {"map_skill_min": MAP_SKILL_MIN,
                     "cosine_spread_ratio_max": COSINE_RATIO_MAX},
      "shift_map_r2": floats(r2), "shift_map_r2_shuffled": floats(r2_shuffled),
      "map_skill": floats(skill), "ridge": floats(ridge),
      "cosine_mean": floats(mean),
      "cosine_within_spread": floats(within),
      "cosine_across_spread": float(np.std(mean)),
      "cosine_spread_ratio": floats(ratio),
  }
