"""Control position tables with a known answer, for the relative verdict.

Relative by construction (a shift is one rotation for every position):
the sinusoid (interleaved sin/cos or [sin | cos] halves), a bank of
sinusoids of random frequencies and phases, and p[i] = R^i p[0] with R a
random rotation (relative but not smooth). Smooth but not relative: the
sinusoid with its phase warped (sqrt(i), log(1 + i), i^2: the move from i
to i + k depends on i) and a random walk. Independent rows: i.i.d.
Gaussian, BERT's initializer (normal, std 0.02, redrawn beyond 2 std) and
the sinusoid's rows shuffled. `mixture` blends a relative table with
another, row by row.

  python -m bert_research.analysis.position_controls [--shapes=128x384,512x768]

prints the verdict of every control at every shape, and the old
(interpolation) verdict beside it.

Example:
  >>> table = rotation(6, 4, seed=0)
  >>> np.allclose(table[1:] @ table[1:].T, table[:-1] @ table[:-1].T)
  True
"""

import argparse
import collections

import numpy as np

WARPS = {
    "sqrt": lambda i, p: np.sqrt(i * p),
    "log": lambda i, p: np.log1p(i) * p / np.log1p(p),
    "square": lambda i, p: i * i / p,
}


def sinusoid(num_positions, hidden_size, layout="interleaved", phase=None):
  """The Transformer's sinusoidal table, float [P, H].

  Args:
    layout: "interleaved" (sin, cos, sin, ...) or "halves" ([sin | cos]).
    phase: float [P], the phase of each row (default: the position).
  """
  pos = (np.arange(num_positions, dtype=np.float64) if phase is None
         else np.asarray(phase, dtype=np.float64))[:, None]
  freq = 10000.0 ** (-2.0 * np.arange(hidden_size // 2)[None] / hidden_size)
  sin, cos = np.sin(pos * freq), np.cos(pos * freq)
  if layout == "halves":
    return np.concatenate([sin, cos], axis=1)
  table = np.zeros((num_positions, hidden_size))
  table[:, 0::2], table[:, 1::2] = sin, cos
  return table


def sinusoid_bank(num_positions, hidden_size, seed):
  """Sinusoids of random frequencies (log-uniform in [1e-3, 2] radians per
  position) and random phases, [sin | cos], float [P, H]."""
  rng = np.random.RandomState(seed)
  freq = np.exp(rng.uniform(np.log(1e-3), np.log(2.0), hidden_size // 2))
  angle = (np.arange(num_positions)[:, None] * freq
           + rng.uniform(0, 2 * np.pi, hidden_size // 2))
  return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def random_rotation(size, rng):
  """A random orthogonal matrix (QR of a Gaussian, signs fixed), [size, size]."""
  q, r = np.linalg.qr(rng.normal(size=(size, size)))
  return q * np.sign(np.diag(r))


def rotation(num_positions, hidden_size, seed):
  """p[i] = R^i p[0], R a random rotation, p[0] random: float [P, H]."""
  rng = np.random.RandomState(seed)
  r = random_rotation(hidden_size, rng)
  rows = [rng.normal(size=hidden_size)]
  for _ in range(num_positions - 1):
    rows.append(r @ rows[-1])
  return np.array(rows)


def warped(num_positions, hidden_size, warp):
  """The sinusoid with phase WARPS[warp](i, P) instead of i: smooth, not
  relative."""
  i = np.arange(num_positions, dtype=np.float64)
  return sinusoid(num_positions, hidden_size,
                  phase=WARPS[warp](i, num_positions))


def random_walk(num_positions, hidden_size, seed):
  """Cumulative sums of independent Gaussian steps, float [P, H]."""
  steps = np.random.RandomState(seed).normal(size=(num_positions,
                                                   hidden_size))
  return np.cumsum(steps, axis=0)


def clipped_init(num_positions, hidden_size, seed, stddev=0.02):
  """BERT's initializer: N(0, stddev^2), values beyond 2 stddev redrawn."""
  rng = np.random.RandomState(seed)
  table = rng.normal(0.0, stddev, (num_positions, hidden_size))
  bad = np.abs(table) > 2 * stddev
  while bad.any():
    table[bad] = rng.normal(0.0, stddev, int(bad.sum()))
    bad = np.abs(table) > 2 * stddev
  return table


def shuffled(table, seed):
  """The rows in a random (seeded) order."""
  return table[np.random.RandomState(seed).permutation(len(table))]


def unit_rows(table):
  return table / np.linalg.norm(table, axis=1, keepdims=True)


def mixture(relative, other, weight):
  """(1 - weight) x relative + weight x other, rows of unit norm first."""
  return (1.0 - weight) * unit_rows(relative) + weight * unit_rows(other)


def controls(num_positions, hidden_size, seed=0):
  """{name: (table float [P, H], expected verdicts)} for one shape."""
  from bert_research.analysis import shift_map  # pylint: disable=g-import-not-at-top
  with shift_map.one_blas_thread():  # 511 small products: 11 s -> 0.1 s.
    return _controls(num_positions, hidden_size, seed)


def _controls(p, h, seed):
  rng = np.random.RandomState(seed)
  yes, yes_or_undetermined, no = {"yes"}, {"yes", "undetermined"}, {"no"}
  return collections.OrderedDict([
      ("sinusoid, interleaved", (sinusoid(p, h), yes)),
      ("sinusoid, halves", (sinusoid(p, h, "halves"), yes)),
      ("random-frequency bank", (sinusoid_bank(p, h, seed), yes)),
      ("R^i p0, random rotation", (rotation(p, h, seed), yes_or_undetermined)),
      ("sqrt(i) phase", (warped(p, h, "sqrt"), no)),
      ("log(1+i) phase", (warped(p, h, "log"), no)),
      ("i^2 phase", (warped(p, h, "square"), no)),
      ("random walk", (random_walk(p, h, seed), no)),
      ("i.i.d. rows", (rng.normal(size=(p, h)), no)),
      ("clipped init", (clipped_init(p, h, seed), no)),
      ("shuffled sinusoid", (shuffled(sinusoid(p, h), seed), no)),
  ])


def old_text(old):
  """One line for an interpolation verdict (its "partial" counts any
  passing offset)."""
  from bert_research.analysis import relative_position  # pylint: disable=g-import-not-at-top
  if old["verdict"] == "partial":
    return "partial (offsets %s of %d)" % (
        relative_position.offset_ranges(old["passing"]), old["max_offset"])
  return "%s (offsets 1..%d tested)" % (old["verdict"], old["max_offset"])


def main(argv=None):
  from bert_research.analysis import relative_position  # pylint: disable=g-import-not-at-top
  from bert_research.analysis import shift_map  # pylint: disable=g-import-not-at-top
  parser = argparse.ArgumentParser(
      prog="python -m bert_research.analysis.position_controls")
  parser.add_argument("--shapes", default="128x384,128x768,512x384,512x768")
  args = parser.parse_args(argv)
  print("| shape | control | expected | verdict | graded | offset-1 score "
        "| old (interpolation) verdict |")
  print("|---|---|---|---|---|---|---|")
  for shape in args.shapes.split(","):
    p, h = (int(v) for v in shape.split("x"))
    for name, (table, expected) in controls(p, h).items():
      rel = relative_position.relative_position_verdict(
          table, first=1, interpolation=False)
      old = shift_map.interpolation_verdict(table, first=1)
      first_score = rel["transfer_score"][0]
      print("| %s | %s | %s | %s | %.3f | %s | %s |" % (
          shape, name, " or ".join(sorted(expected)),
          relative_position.verdict_text(rel), rel["mean_map_skill"],
          "-" if first_score is None else "%.3f" % first_score,
          old_text(old)))


if __name__ == "__main__":
  main()
