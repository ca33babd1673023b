"""A resume with another batch size or sequence length (issue 46 item 6).

It was neither refused nor said: the steps, the learning-rate schedule and
--skip_consumed_batches no longer matched the run being resumed. The
runner records both in output_dir/batch_shape.json at its first save and
refuses a resume that changes them, naming both values, unless
--allow_new_batch_shape (RunConfig.allow_new_batch_shape).
"""

import json
import logging

import pytest

from bert_tf2 import runner
from bert_tf2.common import InputError
from bert_tf2.runner import checkpoints
from tests.runner import toy


def _estimator(out, batch=8, seq=16, **config):
  config = dict(dict(save_checkpoints_steps=5, iterations_per_loop=5),
                **config)
  return runner.Estimator(
      toy.ToyTask(), runner.RunConfig(str(out), **config),
      optimizer_fn=toy.optimizer_fn, train_batch_size=batch,
      max_seq_length=seq)


@pytest.fixture
def five(tmp_path):
  """5 steps at batch 8, sequence length 16."""
  _estimator(tmp_path).train(toy.make_input_fn(), 5)
  return tmp_path


def test_the_batch_shape_is_recorded_beside_the_checkpoints(five):
  with open(five / checkpoints.BATCH_SHAPE_FILE) as f:
    assert json.load(f) == {"train_batch_size": 8, "max_seq_length": 16}


@pytest.mark.parametrize("batch,seq,expected", [
    (16, 16, "--train_batch_size=16: --output_dir=%s holds model.ckpt-5, "
             "trained with --train_batch_size=8 (batch_shape.json)"),
    (4, 32, "--train_batch_size=4, --max_seq_length=32: --output_dir=%s "
            "holds model.ckpt-5, trained with --train_batch_size=8, "
            "--max_seq_length=16")])
def test_resume_with_another_shape_is_refused(five, batch, seq, expected):
  with pytest.raises(InputError) as e:
    _estimator(five, batch=batch, seq=seq).train(toy.make_input_fn(), 10)
  assert str(e.value).startswith(expected % five), str(e.value)
  assert "--allow_new_batch_shape" in str(e.value)
  assert checkpoints.latest_checkpoint(str(five)).endswith("model.ckpt-5")


def test_allowed_on_purpose_and_recorded(five, caplog):
  est = _estimator(five, batch=16, allow_new_batch_shape=True)
  with caplog.at_level(logging.WARNING):
    est.train(toy.make_input_fn(), 10)
  assert est.global_step == 10
  assert any("--allow_new_batch_shape" in r.getMessage()
             for r in caplog.records)
  assert checkpoints.read_batch_shape(str(five)) == {
      "train_batch_size": 16, "max_seq_length": 16}


def test_same_shape_resumes_and_a_damaged_record_is_rewritten(five, caplog):
  (five / checkpoints.BATCH_SHAPE_FILE).write_text("{not json")
  with caplog.at_level(logging.WARNING):
    _estimator(five, batch=16).train(toy.make_input_fn(), 10)
  assert any("damaged" in r.getMessage() for r in caplog.records)
  assert checkpoints.read_batch_shape(str(five))["train_batch_size"] == 16
  _estimator(five, batch=16).train(toy.make_input_fn(), 15)  # Same: fine.
