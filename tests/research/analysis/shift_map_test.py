"""The old interpolation measures (shift_map): the closed forms are exact.

Their verdict no longer decides (relative_position); the control suite's
counter-example test (tests/research/analysis/relative_position_test.py) runs it.
"""

import numpy as np
import pytest

from bert_research.analysis import shift_map as sm


def test_block_cv_is_leave_one_block_out():
  # The closed form equals refitting without each block, in the primal
  # (more rows than features) and the dual form.
  rng = np.random.RandomState(0)
  for n, h in ((48, 5), (16, 30)):
    x, y = rng.normal(size=(n, h)), rng.normal(size=(n, 3))
    got = sm.block_cv_sse(x, [y], [1e-2], block=8)[0, 0]
    scale = np.mean(np.sum((x - x.mean(0)) ** 2, axis=1))
    xa = np.concatenate([x, np.full((n, 1), 10 * np.sqrt(scale))], axis=1)
    want = 0.0
    for b in range(0, n, 8):
      keep = np.r_[0:b, b + 8:n]
      w = np.linalg.solve(xa[keep].T @ xa[keep] + 1e-2 * scale * np.eye(h + 1),
                          xa[keep].T @ y[keep])
      want += np.sum((y[b:b + 8] - xa[b:b + 8] @ w) ** 2)
    assert got == pytest.approx(want, rel=1e-6)


def test_block_cv_of_gram_blocks_equals_block_cv_of_the_shifted_rows():
  # shift_map_r2 hands over blocks of one x x' instead of the targets.
  rng = np.random.RandomState(1)
  for p, h in ((90, 7), (40, 64)):
    x = rng.normal(size=(p, h))
    n = (p - 5) // 8 * 8
    want = sm.block_cv_sse(x[:n], [x[k:k + n] for k in range(1, 6)],
                           sm.RIDGES)
    gram = x @ x.T
    got = sm.block_cv_sse_of_grams(
        x[:n], [gram[k:k + n, k:k + n] for k in range(1, 6)], sm.RIDGES)
    np.testing.assert_allclose(got, want, rtol=1e-9)
