"""Checkpoint files a run reads back, emptied, cut short or random (issue 38
item 3): the run recovers with one warning, never a traceback.

The `checkpoint` state file: ignored with one warning (the checkpoints are
found by their names) and rewritten whole by the next save, retention
intact (an empty one was a ValueError traceback at the next save). A
checkpoint's .index or .data file: that checkpoint is skipped with one
warning (truncate/zero/bit-flip while resuming: tests/runner/
checkpoints_test.py).
"""

import logging
import os

import numpy as np
import pytest

from bert_tf2 import runner
import modeling
from modeling import literal_paths
from tests.reliability import fixtures



def _save(directory, step):
  return modeling.save_checkpoint({"a": np.full([300], step, np.float32)},
                                  str(directory), step, max_to_keep=2)


def _warnings(caplog):
  return [r.getMessage() for r in caplog.records
          if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("how", fixtures.DAMAGE)
def test_damaged_state_file_is_ignored_then_rewritten(tmp_path, caplog, how):
  for step in (1, 2):
    _save(tmp_path, step)
  fixtures.damage_file(tmp_path / "checkpoint", how)
  with caplog.at_level(logging.WARNING):
    assert runner.latest_checkpoint(str(tmp_path)) == str(
        tmp_path / "model.ckpt-2")
    assert runner.latest_checkpoint(str(tmp_path)) == str(
        tmp_path / "model.ckpt-2")
  warnings = _warnings(caplog)
  assert len(warnings) == 1 and "state file" in warnings[0], warnings
  caplog.clear()
  _save(tmp_path, 3)  # Rewrites the state file; keeps the last 2.
  assert literal_paths.read_state(str(tmp_path)) == (
      "model.ckpt-3", ["model.ckpt-2", "model.ckpt-3"])
  assert not (tmp_path / "model.ckpt-1.index").exists()
  assert modeling.resolve_checkpoint(str(tmp_path)) == str(
      tmp_path / "model.ckpt-3")


@pytest.mark.parametrize("how", fixtures.DAMAGE)
@pytest.mark.parametrize("suffix", [".index", ".data-00000-of-00001"])
def test_damaged_checkpoint_file_is_skipped(tmp_path, caplog, suffix, how):
  for step in (1, 2):
    _save(tmp_path, step)
  fixtures.damage_file(str(tmp_path / "model.ckpt-2") + suffix, how)
  with caplog.at_level(logging.WARNING):
    assert runner.latest_checkpoint(str(tmp_path)) == str(
        tmp_path / "model.ckpt-1")
  warnings = _warnings(caplog)
  assert len(warnings) == 1, warnings
  assert "model.ckpt-2 is damaged" in warnings[0], warnings
  assert os.path.exists(str(tmp_path / "model.ckpt-2") + suffix)
