"""The controlled "why relative" experiment (positions_why_synthetic), on a
toy budget: the arms differ in the one cause each names, and the measures
are read off each arm's own table."""

import json
import os

import numpy as np
import pytest

from bert_research.analysis import positions_why_synthetic as why
from bert_research.analysis import relative_position

SIZES = why.Sizes(seq_length=48, text_length=24, vocab_size=8, hidden_size=16,
                  layers=1, heads=2, batch=4, offsets=(1, 2))


def batches(arm, seed=3, step=5, sources=None):
  return why.arm_batch(arm, SIZES, *why.batch_rngs(seed, step),
                       sources=sources)


def texts(batch):
  """[B, n] the tokens of each row's text, in order."""
  return np.stack([row[m == 1] for row, m in zip(batch["input_ids"],
                                                 batch["input_mask"])])


def test_random_and_fixed_differ_only_in_where_the_text_starts():
  random, fixed = batches("random"), batches("fixed")
  np.testing.assert_array_equal(texts(random), texts(fixed))
  assert fixed["starts"].tolist() == [0] * SIZES.batch
  assert len(set(random["starts"].tolist())) > 1
  assert random["starts"].max() <= SIZES.seq_length - SIZES.text_length
  # Moving each random row's text (and its targets) back to 0 gives the
  # fixed batch exactly.
  for key in ("input_ids", "input_mask"):
    back = [np.roll(r, -s) for r, s in zip(random[key], random["starts"])]
    np.testing.assert_array_equal(back, fixed[key])
  for key in ("targets", "weights"):
    back = [[np.roll(r, -s) for r, s in zip(head, random["starts"])]
            for head in random[key]]
    np.testing.assert_array_equal(back, fixed[key])


def test_copy_targets_are_the_token_offset_places_before():
  b = batches("random")
  for j, k in enumerate(SIZES.offsets):
    rows, cols = np.nonzero(b["weights"][j])
    np.testing.assert_array_equal(b["targets"][j, rows, cols],
                                  b["input_ids"][rows, cols - k])
    # Every text position with a token k places before it has a target.
    assert len(rows) == SIZES.batch * (SIZES.text_length - k)
  packed = batches("packed")
  assert packed["input_mask"].all() and packed["starts"].tolist() == [0] * 4


def test_absolute_arm_never_shows_an_offset_twice():
  sources = why.distinct_offset_sources(SIZES.text_length, 2,
                                        np.random.RandomState(0))
  for row in sources:
    offsets = row - np.arange(SIZES.text_length)
    assert len(set(offsets.tolist())) == SIZES.text_length
    assert (offsets != 0).all()
  b = batches("absolute", sources=sources)
  np.testing.assert_array_equal(texts(b), texts(batches("fixed")))
  for j in range(2):
    np.testing.assert_array_equal(b["targets"][j][:, :SIZES.text_length],
                                  texts(b)[:, sources[j]])


def test_flags_refused_in_one_line():
  for argv, flag in ((["--arms=random,shuffled"], "--arms"),
                     (["--text_length=8"], "--text_length=8"),
                     (["--steps=0"], "--steps=0"),
                     (["--hidden_size=10", "--heads=4"], "--hidden_size=10")):
    with pytest.raises(SystemExit, match=flag):
      why.main(["--output_dir=/nonexistent/x"] + argv)


def test_an_output_dir_that_cannot_be_made_fails_before_training(tmp_path):
  blocker = tmp_path / "file"
  blocker.write_text("x")
  with pytest.raises(SystemExit, match="--output_dir=.*file/out"):
    why.main(["--output_dir=" + str(blocker / "out"), "--steps=100000"])


@pytest.fixture(scope="module")
def toy_run():
  return why.experiment(("random", "fixed"), 1, SIZES, steps=2, every=1,
                        log=lambda _: None)


def test_measures_are_read_off_each_arms_own_table(toy_run):
  result, tables = toy_run
  assert [(r["arm"], r["seed"]) for r in result["runs"]] == [
      ("random", 0), ("fixed", 0)]
  # Same seed, same initial table; trained on different data, different.
  first = [r["checkpoints"][0] for r in result["runs"]]
  assert first[0]["common"] == first[1]["common"]
  assert not np.allclose(tables[("random", 0)], tables[("fixed", 0)])
  # The step-0 table of every arm of seed 0: a fresh model of that seed.
  from bert_research.analysis import toy_training  # pylint: disable=g-import-not-at-top
  init = toy_training.ToyNet(toy_training.tiny_config(
      8, 16, 1, 2, 48), 2, 0).position_table()
  inits = {"random": init, "fixed": init}
  for run in result["runs"]:
    assert [p["step"] for p in run["checkpoints"]] == [0, 1, 2]
    table = tables[(run["arm"], 0)]
    own = run["checkpoints"][-1]["own"]
    assert own["positions"] == (48 if run["arm"] == "random" else 24)
    rel = relative_position.relative_position_verdict(
        table[:own["positions"]])
    assert own["verdict"] == rel["verdict"]
    assert own["mean_map_skill"] == rel["mean_map_skill"]
    common = relative_position.relative_position_verdict(table[:24])
    assert run["checkpoints"][-1]["common"]["mean_map_skill"] == (
        common["mean_map_skill"])
    moved = relative_position.relative_position_verdict(
        table[:own["positions"]] - inits[run["arm"]][:own["positions"]])
    assert run["checkpoints"][-1]["moved"]["mean_map_skill"] == (
        moved["mean_map_skill"])
    assert run["checkpoints"][0]["moved"]["mean_map_skill"] == 0.0
  assert list(result["summary"]) == ["random", "fixed"]
  json.dumps(result)


def test_command_writes_the_json_and_the_curves(tmp_path, capsys):
  out = str(tmp_path / "out")
  why.main(["--output_dir=" + out, "--arms=absolute", "--seeds=1",
            "--steps=1", "--every=1", "--seq_length=24", "--text_length=24",
            "--vocab_size=8", "--hidden_size=8", "--heads=2", "--batch=2"])
  with open(os.path.join(out, why.JSON_NAME)) as f:
    result = json.load(f)
  assert result["arms"] == ["absolute"]
  assert len(result["runs"][0]["checkpoints"]) == 2
  from bert_research.analysis import plots  # pylint: disable=g-import-not-at-top
  assert plots.is_png(os.path.join(out, why.PLOT_NAME))
  assert "| absolute | 1 |" in capsys.readouterr().out
