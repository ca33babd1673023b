"""The relative-position verdict tells the controls apart at every size.

BERT's real tables are 512 x 768 (Base), 512 x 384 (MiniLM) and 512 x 128
(tiny); the script analyses 128 positions by default. At each of these:

* the sinusoidal table, in both layouts (interleaved sin/cos as Vaswani et
  al., and [sin | cos]), and rescaled to MiniLM's row norm: relative by
  construction (a shift is one rotation per frequency, and
  cos(p[i], p[i+k]) depends on k only): "yes";
* independent rows (Gaussian rows with the sinusoid's norms, the
  sinusoid's own rows shuffled, BERT's untrained initializer): every
  position identifiable, no two related: "no";
* a random walk (smooth, but its steps are independent): "no";
* a sinusoid with noise added: the graded score falls as the noise grows
  and the verdict goes from "yes" through "partial" to "no".

On all-MiniLM-L6-v2 the verdict quoted in docs/analysis.md is what the code
computes.
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
BERT_SIZES = [(512, 768), (512, 384), (512, 128)]
MINILM_ROW_NORM = 0.43  # Mean norm of MiniLM's rows 1..127 (docs/analysis.md).


def sinusoid(shape, layout):
  """The sinusoidal table, interleaved or [sin | cos], rows of norm 0.43."""
  table = synthetic.sinusoidal_table(*shape)
  if layout == "halves":
    table = np.concatenate([table[:, 0::2], table[:, 1::2]], axis=1)
  return table * MINILM_ROW_NORM / np.linalg.norm(table, axis=1).mean()


def same_norm_random_rows(table, seed):
  rows = np.random.RandomState(seed).normal(size=table.shape)
  norms = np.linalg.norm(table, axis=1, keepdims=True)
  return rows * norms / np.linalg.norm(rows, axis=1, keepdims=True)


def noisy(table, level, seed=0):
  """table + noise whose row norms are `level` x the table's."""
  noise = same_norm_random_rows(table, seed + 100)
  return table + level * noise


def assert_no(rel):
  assert rel["verdict"] == "no", rp.verdict_text(rel)
  assert rel["passing"] == [] and rel["share_passing"] == 0.0


@pytest.mark.parametrize("layout", ["interleaved", "halves"])
@pytest.mark.parametrize("shape", BERT_SIZES + [(128, 384), (40, 16),
                                                (64, 32)])
def test_sinusoidal_table_is_relative(shape, layout):
  rel = rp.relative_position_verdict(sinusoid(shape, layout), first=1)
  assert rel["verdict"] == "yes", rp.verdict_text(rel)
  # Far above the 0.5 threshold at every offset, offset 1 included (the
  # alternating-halves design scored 0.42 there at 128 x 384).
  assert min(rel["map_skill"]) > 0.85, rel["map_skill"]
  assert max(rel["cosine_spread_ratio"]) < 1e-6
  assert max(rel["shift_map_r2_shuffled"]) < 0.0


def test_both_layouts_give_the_same_numbers():
  # [sin | cos] is the interleaved table with its columns permuted, and
  # every measure depends on the rows only through distances and maps.
  a = rp.relative_position_verdict(sinusoid((128, 384), "interleaved"))
  b = rp.relative_position_verdict(sinusoid((128, 384), "halves"))
  np.testing.assert_allclose(a["shift_map_r2"], b["shift_map_r2"], atol=1e-6)
  np.testing.assert_allclose(a["cosine_mean"], b["cosine_mean"], atol=1e-12)


@pytest.mark.parametrize("shape", BERT_SIZES + [(128, 384)])
def test_independent_rows_are_not_relative(shape):
  table = sinusoid(shape, "interleaved")
  for rows in (same_norm_random_rows(table, 0), rp.shuffled_rows(table, 5)):
    np.testing.assert_allclose(np.sort(np.linalg.norm(rows, axis=1)),
                               np.sort(np.linalg.norm(table, axis=1)))
    rel = rp.relative_position_verdict(rows, first=1)
    assert_no(rel)
    # Far from the thresholds, not near a tie.
    assert max(rel["map_skill"]) < 0.0
    assert min(rel["cosine_spread_ratio"]) > 3.0


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("shape", [(64, 32), (128, 64)])
def test_random_rows_of_the_same_norms_are_not_relative(shape, seed):
  rows = same_norm_random_rows(synthetic.sinusoidal_table(*shape), seed)
  rel = rp.relative_position_verdict(rows, first=1)
  assert_no(rel)
  assert max(rel["map_skill"]) < 0.1
  assert min(rel["cosine_spread_ratio"]) > 3.0


@pytest.mark.parametrize("seed", [0])
def test_untrained_initializer_is_not_relative(seed):
  import modeling  # pylint: disable=g-import-not-at-top
  init = modeling.create_initializer(0.02)
  init.seed = seed
  table = np.asarray(init((512, 384)))
  assert np.abs(table).max() <= 0.04 + 1e-6  # Truncated at 2 std.
  for rows in (table[:128], table):
    rel = rp.relative_position_verdict(rows, first=1)
    assert_no(rel)
    assert max(rel["map_skill"]) < 0.1
    assert min(rel["cosine_spread_ratio"]) > 3.0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape", [(512, 384), (512, 128), (128, 384)])
def test_random_walk_is_not_relative(shape, seed):
  # Smooth (neighbours close) but every step independent: the map cannot
  # beat "no move" at small offsets, and at large ones, where it predicts
  # by recalling neighbouring training positions, cos(p[i], p[i+k]) depends
  # on i (the cosine criterion is what rejects it there).
  steps = np.random.RandomState(seed).normal(size=shape)
  rel = rp.relative_position_verdict(np.cumsum(steps, axis=0), first=1)
  assert_no(rel)
  assert rel["map_skill"][0] < 0.0
  k = rel["max_offset"]
  assert rel["map_skill"][k - 1] > 0.5  # The map alone would pass here...
  assert rel["cosine_spread_ratio"][k - 1] > 1.0  # ...the cosine does not.


def test_smoothed_random_rows_are_a_relative_code():
  # "Independent rows" means rows drawn independently of each other. Random
  # rows smoothed along the positions are not that: the table is a
  # stationary random process over positions (a random sum of sinusoids), so
  # cos(p[i], p[i+k]) depends on k only and each shift is nearly one linear
  # map; its own rows shuffled are independent rows again.
  from scipy.ndimage import gaussian_filter1d  # pylint: disable=g-import-not-at-top
  rows = np.random.RandomState(0).normal(size=(512, 384))
  smooth = gaussian_filter1d(rows, 4.0, axis=0)
  rel = rp.relative_position_verdict(smooth, first=1)
  assert rel["verdict"] == "yes", rp.verdict_text(rel)
  assert min(rel["map_skill"]) > 0.8
  assert_no(rp.relative_position_verdict(rp.shuffled_rows(smooth), first=1))


NOISE_LEVELS = (0.0, 0.1, 0.2, 0.5)
VERDICT_ORDER = {"yes": 2, "partial": 1, "no": 0}


@pytest.mark.parametrize("shape", [(512, 384), (512, 128), (128, 384)])
def test_noisy_sinusoid_is_graded(shape):
  table = sinusoid(shape, "interleaved")
  rels = [rp.relative_position_verdict(noisy(table, level), first=1)
          for level in NOISE_LEVELS]
  scores = [r["mean_map_skill"] for r in rels]
  assert all(a > b + 0.02 for a, b in zip(scores, scores[1:])), scores
  shares = [r["share_passing"] for r in rels]
  assert all(a >= b for a, b in zip(shares, shares[1:])), shares
  order = [VERDICT_ORDER[r["verdict"]] for r in rels]
  assert order == sorted(order, reverse=True), [r["verdict"] for r in rels]
  assert rels[0]["verdict"] == "yes" and rels[-1]["verdict"] == "no"
  assert any(r["verdict"] == "partial" for r in rels), [
      rp.verdict_text(r) for r in rels]


def test_block_cv_is_leave_one_block_out():
  # The closed form equals refitting without each block, in the primal
  # (more rows than features) and the dual form.
  rng = np.random.RandomState(0)
  for n, h in ((48, 5), (16, 30)):
    x, y = rng.normal(size=(n, h)), rng.normal(size=(n, 3))
    got = rp.block_cv_sse(x, [y], [1e-2], block=8)[0, 0]
    scale = np.mean(np.sum((x - x.mean(0)) ** 2, axis=1))
    xa = np.concatenate([x, np.full((n, 1), 10 * np.sqrt(scale))], axis=1)
    want = 0.0
    for b in range(0, n, 8):
      keep = np.r_[0:b, b + 8:n]
      w = np.linalg.solve(xa[keep].T @ xa[keep] + 1e-2 * scale * np.eye(h + 1),
                          xa[keep].T @ y[keep])
      want += np.sum((y[b:b + 8] - xa[b:b + 8] @ w) ** 2)
    assert got == pytest.approx(want, rel=1e-6)


def test_verdict_from_and_partial():
  assert rp.verdict_from([True] * 3) == ("yes", 3)
  assert rp.verdict_from([True, False, True]) == ("partial", 1)
  assert rp.verdict_from([False, True, True]) == ("partial", 0)
  assert rp.verdict_from([False] * 3) == ("no", 0)
  passing = rp.passing_offsets([0.9, 0.9, np.nan, 0.9], [0.1, 0.6, 0.1, 0.1])
  assert passing.tolist() == [True, False, False, True]
  rel = {"verdict": "partial", "passing": [1, 2, 3, 4, 5, 6], "max_offset": 31}
  assert rp.verdict_text(rel) == "partial (offsets 1..6 of 31)"
  rel["passing"] = [2, 3, 7]
  assert rp.verdict_text(rel) == "partial (offsets 2..3, 7 of 31)"


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


def test_block_cv_of_gram_blocks_equals_block_cv_of_the_shifted_rows():
  # shift_map_r2 hands over blocks of one x x' instead of the targets.
  rng = np.random.RandomState(1)
  for p, h in ((90, 7), (40, 64)):
    x = rng.normal(size=(p, h))
    n = (p - 5) // 8 * 8
    want = rp.block_cv_sse(x[:n], [x[k:k + n] for k in range(1, 6)],
                           rp.RIDGES)
    gram = x @ x.T
    got = rp.block_cv_sse_of_grams(
        x[:n], [gram[k:k + n, k:k + n] for k in range(1, 6)], rp.RIDGES)
    np.testing.assert_allclose(got, want, rtol=1e-9)
