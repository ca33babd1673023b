"""Paths are paths (issue 38 item 2): glob characters, a space and non-ASCII.

Every script family runs end to end with its output directory, init
checkpoint, export directory and input files under `ru n[1]-é` (TensorFlow
takes "[1]" in a checkpoint prefix or file pattern for a character class
matching "1": a run trained and saved there, then said every checkpoint "is
damaged" on the rerun; run_classifier failed before evaluating).
"""

import json
import os
import shutil

import numpy as np
import pytest

from tests.reliability import fixtures

ODD = "ru n[1]-é"


@pytest.fixture(scope="module")
def odd(inputs, tmp_path_factory):
  """The valid inputs copied under a directory named ODD."""
  d = str(tmp_path_factory.mktemp("paths") / ODD)
  os.makedirs(d)
  p = {"dir": d}
  for name in ("vocab", "config", "records", "text"):
    p[name] = shutil.copy(inputs[name], d)
  p["glue"] = shutil.copytree(inputs["glue"], os.path.join(d, "co la[x]"))
  p["ckpt"] = os.path.join(d, "ckpt[0]", "bert_model.ckpt")
  os.makedirs(os.path.dirname(p["ckpt"]))
  for name in os.listdir(os.path.dirname(inputs["ckpt"])):
    shutil.copy(os.path.join(os.path.dirname(inputs["ckpt"]), name),
                os.path.dirname(p["ckpt"]))
  return p


def _ok(result):
  detail = result.stderr[-3000:]
  assert result.returncode == 0, detail
  assert "damaged" not in result.stderr, detail
  return result


def test_pretraining_resumes_in_an_odd_output_dir(odd):
  out = os.path.join(odd["dir"], "pre[1]")
  args = dict(input_file=odd["records"], bert_config_file=odd["config"],
              output_dir=out, do_train="true", init_checkpoint=odd["ckpt"],
              max_seq_length=fixtures.SEQ,
              max_predictions_per_seq=fixtures.MAX_PRED, train_batch_size=2,
              save_checkpoints_steps=2, iterations_per_loop=2)
  _ok(fixtures.run_in_process("run_pretraining.py", fixtures.flag_args(
      num_train_steps=2, **args)))
  # The rerun resumes (it said every checkpoint "is damaged", exit 1).
  _ok(fixtures.run_in_process("run_pretraining.py", fixtures.flag_args(
      num_train_steps=4, **args)))
  assert os.path.exists(os.path.join(out, "model.ckpt-4.index"))


def test_classifier_trains_evaluates_and_exports_in_odd_dirs(odd):
  out = os.path.join(odd["dir"], "cls[1]")
  export = os.path.join(odd["dir"], "export[1] é")
  args = fixtures.flag_args(
      task_name="cola", do_train="true", do_eval="true",
      data_dir=odd["glue"], vocab_file=odd["vocab"],
      bert_config_file=odd["config"], init_checkpoint=odd["ckpt"],
      output_dir=out, export_dir=export, max_seq_length=16,
      train_batch_size=2, num_train_epochs=1.0)
  result = _ok(fixtures.run_in_process("run_classifier.py", args))
  assert "eval_accuracy = " in result.stdout
  assert os.path.exists(os.path.join(export, "saved_model.pb"))
  # A rerun finds the run's checkpoint (nothing left to train) and evaluates.
  result = _ok(fixtures.run_in_process("run_classifier.py", args))
  assert "global_step = 4" in result.stdout


def test_extract_features_reads_and_writes_odd_paths(odd):
  output = os.path.join(odd["dir"], "features[1].jsonl")
  _ok(fixtures.run_in_process("extract_features.py", fixtures.flag_args(
      input_file=odd["text"], output_file=output, vocab_file=odd["vocab"],
      bert_config_file=odd["config"], init_checkpoint=odd["ckpt"],
      layers="-1", max_seq_length=16, batch_size=2)))
  with open(output, encoding="utf-8") as f:
    rows = [json.loads(line) for line in f]
  assert rows and np.isfinite(
      rows[0]["features"][0]["layers"][0]["values"]).all()


def test_create_pretraining_data_reads_an_odd_input_file(odd):
  text = shutil.copy(odd["text"], os.path.join(odd["dir"], "corpus[1].txt"))
  output = os.path.join(odd["dir"], "out[1].tfrecord")
  _ok(fixtures.run_in_process("create_pretraining_data.py",
                              fixtures.flag_args(
      input_file=text, output_file=output, vocab_file=odd["vocab"],
      max_seq_length=16, max_predictions_per_seq=4, dupe_factor=1)))
  assert os.path.getsize(output) > 0
