"""quickstart.py runs the four real scripts end to end (shortened run)."""

import os
import subprocess
import sys

import pytest

from tests.golden import REPO_ROOT


@pytest.mark.slow
def test_quickstart_runs_end_to_end(tmp_path):
  out = str(tmp_path / "qs")
  proc = subprocess.run(
      [sys.executable, "quickstart.py", "--output_dir=" + out,
       "--pretrain_steps=20", "--finetune_epochs=0.5"],
      cwd=REPO_ROOT, capture_output=True, text=True, timeout=900,
      check=False)
  assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
  for step in ("[1/4]", "[2/4]", "[3/4]", "[4/4]"):
    assert step in proc.stdout
  with open(os.path.join(out, "classifier", "eval_results.txt")) as f:
    results = dict(l.split(" = ") for l in f.read().splitlines())
  assert sorted(results) == ["eval_accuracy", "eval_loss", "global_step",
                             "loss"]
  # 1,500 train sentences, batch 32, half an epoch.
  assert int(results["global_step"]) == int(1500 / 32 * 0.5)
  assert 0.0 <= float(results["eval_accuracy"]) <= 1.0
  assert "eval_accuracy = " in proc.stdout  # The summary is printed.
  for name in ("vocab.txt", "bert_config.json", "pretraining_data.tfrecord",
               "pretraining/model.ckpt-20.index", "logs/3_run_pretraining.log"):
    assert os.path.exists(os.path.join(out, name)), name
