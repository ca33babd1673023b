"""Tests of the position analysis end to end: figures, reports, inputs."""

import json
import os

import numpy as np
import pytest

from bert_research.analysis import plots
from bert_research.analysis import position_report
from tests.research.analysis import synthetic
from tokenization.errors import InputError

VAR = "bert/embeddings/position_embeddings"


@pytest.fixture(scope="module")
def sinusoidal_report(tmp_path_factory):
  out = str(tmp_path_factory.mktemp("pos"))
  report = position_report.analyze_position_table(
      synthetic.sinusoidal_table(64, 32), out, num_components=8,
      source={"checkpoint": "synthetic", "variable": VAR, "shape": [64, 32]})
  return out, report


def test_every_figure_is_a_valid_png(sinusoidal_report):
  out, report = sinusoidal_report
  assert set(report["figures"]) == set(position_report.FIGURES)
  for name in position_report.FIGURES.values():
    path = os.path.join(out, name)
    assert os.path.getsize(path) > 1000, name
    assert plots.is_png(path), name
  assert not [f for f in os.listdir(out) if ".tmp-" in f]


def test_reports_hold_the_numbers(sinusoidal_report):
  out, report = sinusoidal_report
  with open(os.path.join(out, "report.json")) as f:
    on_disk = json.load(f)
  assert on_disk == json.loads(json.dumps(report))
  assert len(on_disk["explained_variance_ratio"]) == 8
  assert on_disk["probe_positions"] == [1, 63]
  assert set(on_disk["probe"]) == {"pairs", "positions"}
  for res in on_disk["probe"].values():
    best = min(res["linear"]["mse"], res["gradient_boosting"]["mse"])
    assert best < 0.1 * res["baseline"]["mse"]
  assert min(on_disk["component_smoothness_lag1"][:3]) > 0.9
  with open(os.path.join(out, position_report.VERDICT_FILE)) as f:
    verdict = json.load(f)
  assert verdict == {"relative_position": on_disk["relative_position"]}
  assert verdict["relative_position"]["verdict"] == "yes"
  with open(os.path.join(out, "report.md")) as f:
    md = f.read()
  assert "| positions" in md and "gradient_boosting" in md
  assert "Verdict: **yes (offsets 1..15 tested)**" in md
  assert "difference_of_absolutes" in md
  for name in position_report.FIGURES.values():
    assert name in md


def test_random_rows_get_no_in_the_written_report(tmp_path):
  out = str(tmp_path)
  table = synthetic.random_table(64, 32, seed=4)
  report = position_report.analyze_position_table(table, out,
                                                  num_components=8)
  with open(os.path.join(out, position_report.VERDICT_FILE)) as f:
    assert json.load(f)["relative_position"]["verdict"] == "no"
  probe = report["relative_position"]["probe_vs_absolute"]
  assert probe["ratio"] == pytest.approx(1.0, rel=1e-6)


def test_position_0_share():
  proj = np.zeros((10, 2))
  proj[0, 0], proj[1:, 0] = 3.0, 0.1
  assert position_report.position_0_share(proj) == pytest.approx(
      9.0 / (9.0 + 9 * 0.01))
  assert position_report.position_0_share(np.zeros((4, 2))) == 0.0


def test_check_num_components():
  table = np.zeros((10, 4))
  position_report.check_num_components(4, table)
  for bad in (1, 5):
    with pytest.raises(InputError, match="--num_components=%d" % bad):
      position_report.check_num_components(bad, table)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
  prefix = os.path.join(str(tmp_path_factory.mktemp("ckpt")), "bert_model.ckpt")
  return synthetic.write_checkpoint(prefix, {
      VAR: synthetic.random_table(40, 16).astype(np.float32),
      "bert/embeddings/word_embeddings": np.zeros((30, 16), np.float32),
      "bert/pooler/dense/bias": np.zeros((16,), np.float32),
  })


def test_load_position_table(checkpoint):
  table, shape = position_report.load_position_table(checkpoint, VAR, 32)
  assert table.shape == (32, 16) and shape == (40, 16)
  table, _ = position_report.load_position_table(checkpoint, VAR, 128,
                                                 clip=True)
  assert table.shape == (40, 16)
  table, _ = position_report.load_position_table(checkpoint, VAR, 0)
  np.testing.assert_allclose(table, synthetic.random_table(40, 16),
                             rtol=1e-6)
  # A directory holding one checkpoint, or a file of it, resolves to it.
  ckpt_dir = os.path.dirname(checkpoint)
  for path in (ckpt_dir, checkpoint + ".index"):
    table, _ = position_report.load_position_table(path, VAR, 8)
    assert table.shape == (8, 16)
  # A directory with a `checkpoint` state file resolves to its latest.
  with open(os.path.join(ckpt_dir, "checkpoint"), "w") as f:
    f.write('model_checkpoint_path: "bert_model.ckpt"\n')
  table, _ = position_report.load_position_table(ckpt_dir, VAR, 8)
  assert table.shape == (8, 16)


@pytest.mark.parametrize("kwargs, message", [
    ({"max_positions": 41}, "--max_positions=41: .* only 40 positions"),
    ({"max_positions": -1}, "--max_positions=-1: must be >= 0"),
    ({"max_positions": 5}, "--max_positions=5: need at least 8"),
    ({"variable": "bert/pooler/dense/bias"}, "expected a 2-D float table"),
    ({"variable": "bert/embeddings/position_embedding"},
     "variable not found .* similar names: " + VAR),
])
def test_load_position_table_bad_inputs(checkpoint, kwargs, message):
  args = {"init_checkpoint": checkpoint, "variable": VAR,
          "max_positions": 16}
  args.update(kwargs)
  with pytest.raises(InputError, match=message):
    position_report.load_position_table(**args)


def test_half_precision_tables_are_read_as_float32(tmp_path):
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  table = synthetic.random_table(16, 8)
  prefix = synthetic.write_checkpoint(str(tmp_path / "half.ckpt"), {
      "f16": table.astype(np.float16),
      "bf16": tf.constant(table, dtype=tf.bfloat16).numpy(),
      "ints": np.zeros((16, 8), np.int32)})
  for name in ("f16", "bf16"):
    got, _ = position_report.load_position_table(prefix, name, 0)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, table, atol=2e-3)
  with pytest.raises(InputError, match="--variable=ints: expected a 2-D"):
    position_report.load_position_table(prefix, "ints", 0)


def test_bad_checkpoint_paths(tmp_path):
  with pytest.raises(InputError, match="--init_checkpoint=.*not found"):
    position_report.load_position_table(str(tmp_path / "nope.ckpt"), VAR, 0)
  with pytest.raises(InputError, match="directory has no checkpoint"):
    position_report.load_position_table(str(tmp_path), VAR, 0)
  for name in ("a.ckpt", "b.ckpt"):
    synthetic.write_checkpoint(str(tmp_path / name),
                               {VAR: np.zeros((8, 4), np.float32)})
  with pytest.raises(InputError, match=r"has 2 checkpoints .*b\.ckpt"):
    position_report.load_position_table(str(tmp_path), VAR, 0)
  with pytest.raises(InputError, match="convert_hf_checkpoint.py"):
    position_report.load_position_table(
        str(tmp_path / "model.safetensors"), VAR, 0)
  broken = tmp_path / "broken.ckpt"
  (tmp_path / "broken.ckpt.index").write_bytes(b"not a checkpoint index")
  with pytest.raises(InputError, match="cannot read checkpoint"):
    position_report.load_position_table(str(broken), VAR, 0)
