"""--jit_compile unset: the rule, the estimate, and the scripts applying it."""

import os
import types

from absl import logging
import pytest
import tensorflow as tf

from bert_tf2.finetune import driver
from bert_tf2.runner import config as config_lib
from bert_tf2.runner import speed_defaults
from modeling import flops
from tests.reliability import fixtures

MINILM = dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6,
              intermediate_size=1536)
LONG = 10 * speed_defaults.MIN_XLA_SECONDS
SHORT = speed_defaults.MIN_XLA_SECONDS / 10


@pytest.mark.parametrize("requested,precision,accelerator,seconds,want", [
    (None, "float32", False, LONG, True),     # long float32 CPU training
    (None, "float32", False, SHORT, False),   # too short to earn the compile
    (None, "bfloat16", False, LONG, False),   # XLA halves bf16 matmuls
    (None, "float16", False, LONG, False),
    (None, "float32", True, LONG, False),     # GPU/TPU: not measured, off
    (True, "bfloat16", False, SHORT, True),   # the flag always wins
    (False, "float32", False, LONG, False),
])
def test_rule(requested, precision, accelerator, seconds, want):
  on, reason = speed_defaults.choose_jit_compile(requested, precision,
                                                 accelerator, seconds)
  assert on is want
  assert reason and "\n" not in reason


CLUSTER_LONG = 10 * speed_defaults.MIN_CLUSTER_SECONDS
CLUSTER_SHORT = speed_defaults.MIN_CLUSTER_SECONDS / 10


@pytest.mark.parametrize("precision,accelerator,jit,seconds,want", [
    ("bfloat16", False, False, CLUSTER_LONG, True),
    ("bfloat16", False, False, CLUSTER_SHORT, False),  # compile not earned
    ("float32", False, False, CLUSTER_LONG, False),    # original's kernels
    ("float16", False, False, CLUSTER_LONG, False),    # not measured
    ("bfloat16", True, False, CLUSTER_LONG, False),    # GPU/TPU
    ("bfloat16", False, True, CLUSTER_LONG, False),    # all compiled
])
def test_cluster_rule(precision, accelerator, jit, seconds, want):
  on, reason = speed_defaults.choose_cluster_elementwise(
      precision, accelerator, jit, seconds)
  assert on is want
  assert reason and "\n" not in reason


def test_resolve_logs_the_clusters_below_float32(tmp_path, monkeypatch):
  lines = []
  monkeypatch.setattr(logging, "info", lambda fmt, *a: lines.append(fmt % a))
  config = config_lib.RunConfig(str(tmp_path))
  assert config.cluster_elementwise  # Allowed unless a rule says no.
  speed_defaults.resolve_jit_compile(config, None, "bfloat16", False,
                                     CLUSTER_SHORT, accelerator=False)
  assert config.cluster_elementwise is False
  speed_defaults.resolve_jit_compile(config, None, "bfloat16", False,
                                     CLUSTER_LONG, accelerator=False)
  assert config.cluster_elementwise is True
  assert len(lines) == 4
  assert lines[1].startswith(
      "XLA clusters between the training step's matmuls: off (about")
  assert lines[3].startswith(
      "XLA clusters between the training step's matmuls: on (bfloat16")


def test_estimate_scales_with_examples_tokens_and_rate():
  one = speed_defaults.estimate_train_seconds(MINILM, 128, 128, 1000)
  assert one == pytest.approx(
      1000 * flops.train_flops_per_sequence(MINILM, 128) / 200e9)
  assert speed_defaults.estimate_train_seconds(
      MINILM, 128, 128, 2000) == pytest.approx(2 * one)
  # Four choices of 128 tokens are four sequences per example.
  assert speed_defaults.estimate_train_seconds(
      MINILM, 4 * 128, 128, 1000) == pytest.approx(4 * one)
  assert speed_defaults.estimate_train_seconds(
      MINILM, 128, 128, 1000, gflops=400) == pytest.approx(one / 2)
  # Pretraining counts the masked-LM head as well.
  assert speed_defaults.estimate_train_seconds(
      MINILM, 128, 128, 1000, num_masked=20) > one


def test_resolve_sets_the_config_and_logs_one_line(tmp_path, monkeypatch):
  lines = []
  monkeypatch.setattr(logging, "info", lambda fmt, *a: lines.append(fmt % a))
  config = config_lib.RunConfig(str(tmp_path))
  assert speed_defaults.resolve_jit_compile(config, None, "float32", False,
                                            LONG, accelerator=False)
  assert config.jit_compile is True
  assert not speed_defaults.resolve_jit_compile(config, None, "float32",
                                                False, SHORT,
                                                accelerator=False)
  assert config.jit_compile is False
  assert len(lines) == 2
  assert lines[0].startswith("XLA for the training step: on (float32")
  assert "--jit_compile=true/false overrides" in lines[0]
  assert lines[1].startswith("XLA for the training step: off (float32")
  # --use_tpu is an accelerator without asking TensorFlow.
  assert not speed_defaults.resolve_jit_compile(config, None, "float32",
                                                True, LONG)


class _Job(object):
  """What driver.resolve_jit_compile reads of a job: multiple choice's
  records (4 choices of 64 tokens)."""
  bert_config = MINILM

  def record_spec(self, split):
    assert split == "train"
    ids = tf.io.FixedLenFeature([4, 64], tf.int64)
    return {"input_ids": ids, "input_mask": ids, "label_ids":
            tf.io.FixedLenFeature([], tf.int64)}


def test_driver_counts_every_sequence_of_an_example(tmp_path, monkeypatch):
  seen = []
  monkeypatch.setattr(
      speed_defaults, "resolve_jit_compile",
      lambda config, requested, precision, use_tpu, seconds: seen.append(
          (requested, precision, seconds)) or True)
  plan = types.SimpleNamespace(
      max_seq_length=64, train_batch_size=8, jit_compile=None,
      precision="float32", use_tpu=False,
      config=config_lib.RunConfig(str(tmp_path)))
  # The choice is returned (the job's input options get it), not written
  # into the settings.
  assert driver.resolve_jit_compile(_Job(), plan, num_train_steps=100)
  assert seen == [(None, "float32", pytest.approx(
      speed_defaults.estimate_train_seconds(MINILM, 256, 64, 800)))]


@pytest.mark.parametrize("flag,want,precision", [
    (None, False, "float32"), ("true", True, "float32"),
    (None, False, "bfloat16")])
def test_run_pretraining_applies_the_rule(tmp_path, monkeypatch, flag, want,
                                          precision):
  """The script resolves unset --jit_compile (a 4-step tiny run: off) and
  keeps a given one; the estimator trains with the choice. The tiny run is
  too short for the elementwise clusters: the estimator says no to them."""
  from bert_tf2.runner import loops
  chosen = []
  original = loops.TrainSteps.__init__

  def record(self, *args, **kwargs):
    chosen.append(kwargs.get("jit_compile"))
    assert kwargs.get("cluster_elementwise") is False
    original(self, *args, **kwargs)
    assert not self.clusters_elementwise
  monkeypatch.setattr(loops.TrainSteps, "__init__", record)
  p = fixtures.make_inputs(str(tmp_path))
  values = dict(input_file=p["records"], bert_config_file=p["config"],
                output_dir=os.path.join(p["dir"], "out"), do_train="true",
                max_seq_length=fixtures.SEQ,
                max_predictions_per_seq=fixtures.MAX_PRED,
                train_batch_size=2, num_train_steps=2,
                iterations_per_loop=2, precision=precision)
  if flag is not None:
    values["jit_compile"] = flag
  result = fixtures.run_in_process("run_pretraining.py",
                                   fixtures.flag_args(**values))
  assert result.returncode == 0, result.stderr
  assert chosen == [want]
