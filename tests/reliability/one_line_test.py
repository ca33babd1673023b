"""What a person sees when a script refuses its input: one line (issue 38).

The scripts run as a user runs them, in a subprocess with the user's
environment: no TF_CPP_MIN_LOG_LEVEL, so TensorFlow's ~11 start-up lines
(oneDNN, "Could not find cuda drivers", cuInit on a machine without a GPU)
would show unless the scripts keep them out (bert_tf2/common/quiet_start.py).
The error is printed once (not also as a log line), and checks that need no
records run before any record or example dump.
"""

import os
import subprocess
import sys

import pytest

from tests.golden import REPO_ROOT
from tests.reliability import fixtures


def _run(script, args, **env_changes):
  env = fixtures.script_env()
  env.pop("TF_CPP_MIN_LOG_LEVEL")  # The user's environment: not set.
  env.update(env_changes)
  return subprocess.run(
      [sys.executable, os.path.join(REPO_ROOT, script)] + list(args),
      cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE,
      stderr=subprocess.STDOUT, text=True, timeout=300, check=False)


def _lines(result):
  return [l for l in result.stdout.splitlines() if l.strip()]


@pytest.mark.slow
def test_checkpoint_of_another_shape_is_one_line_and_writes_nothing(
    inputs, tmp_path):
  out = str(tmp_path / "out")
  result = _run("run_classifier.py", fixtures.flag_args(
      task_name="cola", do_train="true", data_dir=inputs["glue"],
      vocab_file=inputs["vocab"], bert_config_file=inputs["config"],
      init_checkpoint=inputs["other_ckpt"], output_dir=out,
      max_seq_length=16, train_batch_size=2))
  assert result.returncode == 1
  assert _lines(result) == [
      "error: --init_checkpoint=%s: %s says hidden_size=16 but the "
      "checkpoint has 24; intermediate_size=32 but the checkpoint has 48; "
      "does it belong to this checkpoint?" % (inputs["other_ckpt"],
                                              inputs["config"])]
  # Checked from the checkpoint's index, before records or assets.
  assert not os.path.exists(out) or not os.listdir(out)


@pytest.mark.slow
def test_misspelled_config_key_is_one_line(inputs, tmp_path):
  config = dict(fixtures.config_dict())
  config["hidden_sise"] = config.pop("hidden_size")
  path = fixtures.write_json(str(tmp_path / "bert_config.json"), config)
  result = _run("run_pretraining.py", fixtures.flag_args(
      bert_config_file=path, input_file=inputs["records"],
      output_dir=str(tmp_path / "out"), do_train="true",
      max_seq_length=fixtures.SEQ, max_predictions_per_seq=fixtures.MAX_PRED))
  assert result.returncode == 1
  assert _lines(result) == [
      "error: %s: unknown key 'hidden_sise' (did you mean 'hidden_size'?)"
      % path]


def test_tensorflow_output_comes_back_when_asked_for():
  # The documented way: set TF_CPP_MIN_LOG_LEVEL yourself; it is kept.
  from bert_tf2.common import quiet_start  # pylint: disable=g-import-not-at-top
  environ = {"TF_CPP_MIN_LOG_LEVEL": "0"}
  assert not quiet_start.install(environ)
  assert environ == {"TF_CPP_MIN_LOG_LEVEL": "0"}


def test_quiet_import_hides_file_descriptor_2_output_only_inside():
  from bert_tf2.common import quiet_start  # pylint: disable=g-import-not-at-top
  code = ("import os, sys; from bert_tf2.common import quiet_start\n"
          "with quiet_start.stderr_to_devnull():\n"
          "  os.write(2, b'noise\\n')\n"
          "os.write(2, b'kept\\n')\n")
  result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT,
                          env=fixtures.script_env(), capture_output=True,
                          text=True, timeout=60, check=True)
  assert result.stderr == "kept\n"
  assert quiet_start.NOISY_MODULES == ("tensorflow", "tensorflow_text")
