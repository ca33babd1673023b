"""Resuming past a damaged newest checkpoint (issue 29 item 1).

Each file of the newest checkpoint is truncated, zeroed or bit-flipped; the
runner must say so in one warning, leave the files in place, and resume from
the newest checkpoint it can actually read.
"""

import logging
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import runner
from bert_tf2.common import InputError
from bert_tf2.runner import checkpoints
import modeling
from tests.runner import toy
from tests.runner.estimator_test import make_estimator

_FILES = (".index", ".data-00000-of-00001")
_DAMAGE = ("truncate", "zero", "flip")


def damage(path, how):
  data = bytearray(open(path, "rb").read())
  if how == "truncate":
    data = data[:len(data) // 2]
  elif how == "zero":
    data = bytearray(len(data))
  else:
    data[len(data) // 2] ^= 0x10
  with open(path, "wb") as f:
    f.write(data)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  """Checkpoints at steps 5 and 10, and the weights of 15 straight steps."""
  ten = tmp_path_factory.mktemp("ten")
  make_estimator(ten).train(toy.make_input_fn(), 10)
  fifteen = tmp_path_factory.mktemp("fifteen")
  make_estimator(fifteen).train(toy.make_input_fn(), 15)
  return ten, toy.checkpoint_arrays(str(fifteen / "model.ckpt-15"))


@pytest.mark.parametrize("how", _DAMAGE)
@pytest.mark.parametrize("suffix", _FILES)
def test_resume_skips_damaged_newest_checkpoint(trained, tmp_path, caplog,
                                                suffix, how):
  ten, straight15 = trained
  out = tmp_path / "out"
  shutil.copytree(ten, out)
  bad = out / ("model.ckpt-10" + suffix)
  damage(bad, how)
  damaged_bytes = bad.read_bytes()

  est = make_estimator(out)
  with caplog.at_level(logging.WARNING):
    assert est.latest_checkpoint() == str(out / "model.ckpt-5")
  warnings = [r.getMessage() for r in caplog.records
              if "model.ckpt-10" in r.getMessage()]
  assert len(warnings) == 1 and "damaged" in warnings[0], warnings
  assert bad.read_bytes() == damaged_bytes  # Never deleted nor repaired.

  est.train(toy.make_input_fn(), 15)
  assert est.global_step == 15
  resumed = toy.checkpoint_arrays(str(out / "model.ckpt-15"))
  assert set(resumed) == set(straight15)
  for name, value in straight15.items():
    np.testing.assert_allclose(resumed[name], value, rtol=1e-6, atol=1e-7,
                               err_msg=name)


def test_no_readable_checkpoint_is_one_error(tmp_path):
  modeling.save_checkpoint({"a": np.ones([300], np.float32)}, str(tmp_path), 3)
  damage(tmp_path / "model.ckpt-3.data-00000-of-00001", "flip")
  with pytest.raises(InputError, match=r"--output_dir=.*no readable "
                     r"checkpoint \(model.ckpt-3 is damaged"):
    runner.latest_checkpoint(str(tmp_path))
  assert (tmp_path / "model.ckpt-3.index").exists()


def test_rewritten_checkpoint_is_read_again(tmp_path):
  """The per-process verdict cache is keyed by the files' size and mtime."""
  values = {"a": np.ones([300], np.float32)}
  prefix = modeling.save_checkpoint(values, str(tmp_path), 3)
  assert checkpoints.checkpoint_error(prefix) is None
  damage(prefix + ".data-00000-of-00001", "truncate")
  assert "less bytes" in checkpoints.checkpoint_error(prefix)
  modeling.save_checkpoint(values, str(tmp_path), 3)
  assert checkpoints.checkpoint_error(prefix) is None


@pytest.mark.parametrize("how", _DAMAGE)
@pytest.mark.parametrize("suffix", _FILES)
def test_damaged_init_checkpoint_is_one_error(tmp_path, suffix, how):
  variables = {"a": tf.Variable(np.zeros([300], np.float32))}
  prefix = modeling.write_checkpoint(
      {"a": np.ones([300], np.float32)}, str(tmp_path / "bert_model.ckpt"))
  damage(prefix + suffix, how)
  with pytest.raises(InputError, match=r"^--init_checkpoint=%s: " %
                     os.path.join(str(tmp_path), "bert_model.ckpt")):
    modeling.init_from_checkpoint(variables, prefix)


def test_restoring_a_named_damaged_checkpoint_is_one_error(trained, tmp_path):
  """evaluate/predict(checkpoint_path=...) of a damaged checkpoint."""
  out = tmp_path / "out"
  shutil.copytree(trained[0], out)
  damage(out / "model.ckpt-5.data-00000-of-00001", "truncate")
  est = make_estimator(out)
  with pytest.raises(InputError, match=r"model.ckpt-5 is damaged: Read less"):
    est.evaluate(toy.make_input_fn(16, repeat=False), steps=1,
                 checkpoint_path=str(out / "model.ckpt-5"))


def test_setting_aside_never_replaces_an_earlier_set_aside_one(tmp_path):
  """Issue 63: a rerun's NaN checkpoint of the same step replaced the one
  an earlier run had set aside."""
  prefix = str(tmp_path / "model.ckpt-5")
  names = []
  for value in (1.0, 2.0, 3.0):
    modeling.write_checkpoint({"w": np.float32(value)}, prefix)
    names.append(checkpoints.set_aside(prefix, "nonfinite-loss"))
  assert [os.path.basename(n) for n in names] == [
      "model.ckpt-5.nonfinite-loss", "model.ckpt-5.nonfinite-loss-2",
      "model.ckpt-5.nonfinite-loss-3"]
  assert [float(tf.train.load_checkpoint(n).get_tensor("w"))
          for n in names] == [1.0, 2.0, 3.0]
  assert not os.path.exists(prefix + ".index")
