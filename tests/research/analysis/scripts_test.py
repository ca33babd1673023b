"""Runs the analysis command lines as users do (subprocess, real flags)."""

import os
import subprocess

import numpy as np
import pytest

from bert_research.analysis import plots
from bert_research.analysis import position_report
from tests import warm_python
from tests.research.analysis import synthetic

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
VAR = "bert/embeddings/position_embeddings"


def run_script(script, *flags):
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
  return subprocess.run([warm_python.command(), os.path.join(REPO, script)]
                        + list(flags), cwd=REPO, env=env,
                        capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
  prefix = os.path.join(str(tmp_path_factory.mktemp("ckpt")),
                        "bert_model.ckpt")
  return synthetic.write_checkpoint(prefix, {
      VAR: synthetic.sinusoidal_table(40, 16).astype(np.float32)})


def test_analyze_position_embeddings_writes_everything(checkpoint, tmp_path):
  out = str(tmp_path / "out")
  proc = run_script("analyze_position_embeddings.py",
                    "--init_checkpoint=" + checkpoint, "--output_dir=" + out,
                    "--max_positions=32", "--num_components=4",
                    "--max_pairs=500")
  assert proc.returncode == 0, proc.stderr[-3000:]
  for name in position_report.FIGURES.values():
    assert plots.is_png(os.path.join(out, name)), name
  assert os.path.getsize(os.path.join(out, "report.md")) > 0
  assert os.path.getsize(os.path.join(out, "report.json")) > 0


def test_analyze_position_embeddings_bad_flag_is_one_clear_line(checkpoint,
                                                                tmp_path):
  proc = run_script("analyze_position_embeddings.py",
                    "--init_checkpoint=" + checkpoint,
                    "--output_dir=" + str(tmp_path),
                    "--num_components=99")
  assert proc.returncode == 1
  assert "error: --num_components=99: must be in [2, " in proc.stderr
  assert "Traceback" not in proc.stderr
