"""Does a position table carry relative position? The far-range verdict.

A table carries relative position when what relates position i to i + k
depends on the offset k and not on where i is (Vaswani et al.: "for any
fixed offset k, PE[pos+k] can be represented as a linear function of
PE[pos]"). For a shift that is an isometry (a rotation: the sinusoid,
p[i] = R^i p[0]) this has an exact, size-free test: the rows' cosine
matrix is Toeplitz, cos(p[i], p[i+k]) = c_k for every i. (If
p[i+1] = Q p[i] with Q orthogonal the cosines are Toeplitz; conversely
Toeplitz cosines make p[i] -> p[i+1] an isometry of the rows.) Unlike a
linear map fitted in the hidden space, it needs no more rows than
dimensions: a map from 128 rows in 384 dimensions can memorise them.

The verdict is a transfer test. The analysed rows are cut in half at
h = P // 2. For each offset k = 1..K, c_k is estimated on the near half
(starts i with i + k < h) and used to predict the far half's cosines
(starts i >= h): score_k = 1 - SSE(c_k) / min(SSE(no move), SSE(offset
blind)), the two non-relative explanations being "no move" (cos = 1: what
wins for a smooth table at small offsets) and "offset blind" (every offset
has the near half's mean cosine over all offsets: what independent rows
look like; its error is averaged over the offsets). A table only smooth in
position (phase sqrt(i), log(i), i^2, a random walk) moves at a different
speed in the far half, so the near cosines mispredict the far ones by more
than "no move" does; independent rows (i.i.d., clipped init, shuffled)
have no offset structure for the near half to teach.

An offset passes when score_k >= TRANSFER_MIN. Verdict: "yes" when every
offset passes, "partial" when offsets 1..m pass (m >= 1, up_to_offset) but
not all, "no" when offset 1 fails, "undetermined" when a half has fewer
than MIN_STARTS starts at offset K (too few rows to test). The graded score
(kept under the key mean_map_skill) is the sum of the clipped scores over
the leading passing offsets, divided by K: 0 for "no", 1 for an exact
relative table. The old interpolation measures (`shift_map`) are kept in
the dict for the record; they do not decide.

Failure modes: a shift that is linear but not an isometry in the analysed
basis (a rotation seen through a skewing matrix) has non-Toeplitz cosines
and reads less relative than it is; a relative table plus a large constant
offset not orthogonal to its rotating part likewise (the cosines are
uncentred, as the sinusoid's exact test needs); i.i.d. noise added to a
relative table keeps it relative (noise is offset-blind in both halves).

Example (a rotation, a square-root phase, random rows):
  >>> import numpy as np
  >>> i = np.arange(64)[:, None]
  >>> freq = 10000.0 ** (-np.arange(16)[None] / 16.0)
  >>> table = lambda ph: np.concatenate([np.sin(ph * freq), np.cos(ph * freq)], 1)
  >>> relative_position_verdict(table(i))["verdict"]
  'yes'
  >>> relative_position_verdict(table(8.0 * np.sqrt(i)))["verdict"]
  'no'
  >>> rows = np.random.RandomState(0).normal(size=(64, 32))
  >>> relative_position_verdict(rows)["verdict"]
  'no'
"""

import numpy as np

from bert_research.analysis import shift_map

TRANSFER_MIN = 0.5
MIN_STARTS = 6
VERDICTS = ("yes", "partial", "no", "undetermined")
# The per-offset lists of a verdict dict shown in tables, in column order.
PER_OFFSET = ("transfer_score", "near_cosine", "far_cosine",
              "far_cosine_spread")


def half_cosines(table, max_offset):
  """The offset cosines of the near and far halves.

  Args:
    table: float [P, H], row i = position i.
    max_offset: int K.

  Returns:
    (h, near, far): h = P // 2; near[k - 1]: float [h - k], cos(p[i],
    p[i+k]) for i + k < h; far[k - 1]: float [P - h - k], for i >= h.
  """
  x = np.asarray(table, dtype=np.float64)
  norms = np.linalg.norm(x, axis=1, keepdims=True)
  unit = x / np.where(norms > 0, norms, 1.0)
  h = x.shape[0] // 2
  near, far = [], []
  for k in range(1, max_offset + 1):
    cos = np.sum(unit[:-k] * unit[k:], axis=1)
    near.append(cos[:h - k])
    far.append(cos[h:])
  return h, near, far


def transfer_scores(near, far):
  """Per offset: how well the near half's c_k predicts the far cosines.

  Args:
    near, far: lists of K float arrays from `half_cosines`.

  Returns:
    float [K]: 1 - SSE(c_k) / min(SSE(no move), mean SSE(offset blind));
    nan where both baselines are 0.

  >>> near = [np.array([0.9, 0.9]), np.array([0.5, 0.5])]
  >>> transfer_scores(near, [np.array([0.9]), np.array([0.5])]).tolist()
  [1.0, 1.0]
  >>> # The far half barely moves: "no move" wins by far.
  >>> transfer_scores(near, [np.array([0.99]), np.array([0.9])]).round(2).tolist()
  [-80.0, -15.0]
  """
  c = np.array([np.mean(n) for n in near])
  blind = float(np.mean(np.concatenate(near)))
  fit = np.array([np.sum((f - ck) ** 2) for f, ck in zip(far, c)])
  no_move = np.array([np.sum((f - 1.0) ** 2) for f in far])
  offset_blind = float(np.mean([np.sum((f - blind) ** 2) for f in far]))
  base = np.minimum(no_move, offset_blind)
  with np.errstate(divide="ignore", invalid="ignore"):
    return np.where(base > 0, 1.0 - fit / np.where(base > 0, base, 1.0),
                    np.nan)


def determined(num_rows, max_offset):
  """Whether both halves keep MIN_STARTS starts at offset max_offset.

  >>> determined(32, 8), determined(20, 5)
  (True, False)
  """
  h = num_rows // 2
  return min(h - max_offset, num_rows - h - max_offset) >= MIN_STARTS


def min_rows():
  """The fewest rows that give a verdict at the default offsets.

  >>> min_rows()
  22
  """
  n = 2
  while not determined(n, shift_map.default_max_offset(n)):
    n += 1
  return n


def verdict_from(passing):
  """("yes" | "partial" | "no", m): m = how many leading offsets pass.

  >>> verdict_from([True, True, False, True])
  ('partial', 2)
  >>> verdict_from([True, True]), verdict_from([False, True])
  (('yes', 2), ('no', 0))
  """
  passing = list(passing)
  m = shift_map.leading_passes(passing)
  if m == len(passing):
    return "yes", m
  return ("partial" if m else "no"), m


def offset_ranges(offsets):
  """Compact text of sorted offsets.

  >>> offset_ranges([1, 2, 3, 7, 9, 10])
  '1..3, 7, 9..10'
  """
  runs = []
  for k in offsets:
    if runs and k == runs[-1][1] + 1:
      runs[-1][1] = k
    else:
      runs.append([k, k])
  return ", ".join("%d" % a if a == b else "%d..%d" % (a, b) for a, b in runs)


def verdict_text(rel):
  """One line for a verdict dict.

  >>> verdict_text({"verdict": "partial", "up_to_offset": 6, "max_offset": 31})
  'partial (offsets 1..6 of 31)'
  """
  if rel["verdict"] == "partial":
    return "partial (offsets 1..%d of %d)" % (rel["up_to_offset"],
                                             rel["max_offset"])
  if rel["verdict"] == "undetermined":
    return "undetermined (too few rows for offsets 1..%d)" % rel["max_offset"]
  return "%s (offsets 1..%d tested)" % (rel["verdict"], rel["max_offset"])


def relative_position_verdict(table, max_offset=None, first=0,
                              interpolation=True):
  """The far-range verdict (and, for the record, the old measures).

  Args:
    table: float [P, H]; rows first.. are analysed (first=1 leaves out
      position 0, always [CLS] in BERT, often an outlier).
    max_offset: int K, default shift_map.default_max_offset of the rows.
    first: int, first position analysed.
    interpolation: also compute the old interpolation measures (keys
      shift_map_r2, map_skill, cosine_spread_ratio, ... and
      interpolation_verdict); False skips them (faster).

  Returns:
    dict: verdict (one of VERDICTS), up_to_offset, passing (offsets whose
    score passes, leading or not), share_passing, mean_map_skill (the
    graded score), max_offset, first_position, split_position (h, relative
    to first), thresholds, and per offset k = 1..K (lists, None for nan)
    transfer_score, near_cosine (c_k), far_cosine (far mean),
    far_cosine_spread (far std); plus the old measures when asked.
  """
  rows = np.asarray(table, dtype=np.float64)[first:]
  n = rows.shape[0]
  k_max = (shift_map.default_max_offset(n) if max_offset is None
           else int(max_offset))
  if not 1 <= k_max < n:
    raise ValueError("max_offset=%d must be in [1, %d)" % (k_max, n))
  h, near, far = half_cosines(rows, k_max)
  if determined(n, k_max):
    score = transfer_scores(near, far)
    passing = np.nan_to_num(score, nan=-np.inf) >= TRANSFER_MIN
    verdict, up_to = verdict_from(passing)
  else:
    score = np.full(k_max, np.nan)
    passing = np.zeros(k_max, dtype=bool)
    verdict, up_to = "undetermined", 0
  graded = float(np.sum(np.clip(score[:up_to], 0.0, 1.0)) / k_max)

  def floats(a):
    return [float(v) if np.isfinite(v) else None for v in a]

  def stat(parts, fn):
    return floats([fn(p) if len(p) else np.nan for p in parts])

  rel = {
      "verdict": verdict, "up_to_offset": int(up_to),
      "passing": [int(k) + 1 for k in np.nonzero(passing)[0]],
      "share_passing": float(np.mean(passing)),
      "mean_map_skill": graded,
      "max_offset": int(k_max), "first_position": int(first),
      "split_position": int(h), "min_starts": MIN_STARTS,
      "thresholds": {"transfer_min": TRANSFER_MIN},
      "transfer_score": floats(score),
      "near_cosine": stat(near, np.mean), "far_cosine": stat(far, np.mean),
      "far_cosine_spread": stat(far, np.std),
  }
  if interpolation:
    old = shift_map.interpolation_verdict(rows, max_offset=k_max)
    rel["interpolation_verdict"] = old["verdict"]
    rel["thresholds"].update(old["thresholds"])
    for key in ("block", "ridges", "shuffle_seed", "shift_map_r2",
                "shift_map_r2_shuffled", "map_skill", "ridge", "cosine_mean",
                "cosine_within_spread", "cosine_across_spread",
                "cosine_spread_ratio"):
      rel[key] = old[key]
  return rel
