"""Pieces the cross-path tests share (tests/*/cross_path_test.py): a tiny
checkpoint directory with widely spread weights, and a SavedModel served in
a fresh process that imports only tensorflow and tensorflow_text."""

import json
import os
import subprocess

import modeling
from tests import warm_python
from tests.common import tiny_dir


def spread_checkpoint(directory, model_cls):
  """`tiny_dir.write(directory)` with bert_model.ckpt replaced by the
  weights of `model_cls(config)` drawn with initializer_range 0.5 (head
  included), so that the inputs' answers differ far beyond 1e-5."""
  os.makedirs(directory)
  tiny_dir.write(directory)
  config = tiny_dir.config()
  config.initializer_range = 0.5
  modeling.write_checkpoint(
      {n: v.numpy() for n, v in modeling.original_variable_names(
          model_cls(config)).items()},
      os.path.join(directory, "bert_model.ckpt"))
  return directory


_PRELUDE = r"""
import json, sys
import tensorflow as tf
import tensorflow_text  # noqa: F401  (the in-graph tokenizer's ops)
assert "bert_tf2" not in sys.modules and "modeling" not in sys.modules
args = json.loads(sys.argv[1])
serve = tf.saved_model.load(args["export"]).signatures["serving_default"]
"""


def serve_in_fresh_process(export_dir, call, args):
  """Runs `call` (Python code using `serve` and `args`, printing
  "RESULT" + JSON) in a fresh interpreter; returns the decoded JSON.

  Args: export_dir: the SavedModel; call: code; args: JSON-able dict
  (export_dir is added as "export")."""
  args = dict(args, export=export_dir)
  env = dict(os.environ, PYTHONPATH="")
  proc = subprocess.run(
      [warm_python.command(), "-c", _PRELUDE + call, json.dumps(args)],
      capture_output=True, text=True, env=env,
      cwd=os.path.dirname(export_dir), timeout=300)
  assert proc.returncode == 0, proc.stderr[-3000:]
  return json.loads(proc.stdout.split("RESULT", 1)[1])


def without_setting(output_dir, section, key, destination):
  """A copy of a run's output_dir whose model.json lacks `key` of
  `section` ("preprocessor", "model", "outputs"; section None: a top-level
  field such as "checkpoint"); returns its path. The records and event
  files are not copied."""
  import shutil  # pylint: disable=g-import-not-at-top
  shutil.copytree(output_dir, destination, ignore=shutil.ignore_patterns(
      "*.tf_record", "events.out.*", "test_*"))
  path = os.path.join(destination, "model.json")
  with open(path) as f:
    record = json.load(f)
  del (record if section is None else record[section])[key]
  with open(path, "w") as f:
    json.dump(record, f)
  return destination


REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def predict_again(output_dir, destination, script, outputs):
  """A copy of a finished run's output_dir (no records, event files or
  outputs) at `destination`, then `python <script> --do_predict
  --output_dir=<destination>` with no other flag, as a user runs it (a
  fresh process). Returns {name: text} of each of `outputs` it wrote."""
  import shutil  # pylint: disable=g-import-not-at-top
  shutil.copytree(output_dir, destination, ignore=shutil.ignore_patterns(
      "*.tf_record", "events.out.*", *outputs))
  proc = subprocess.run(
      [warm_python.command(), os.path.join(REPO, script), "--do_predict",
       "--output_dir=" + destination],
      capture_output=True, text=True, cwd=destination, timeout=600,
      env=dict(os.environ, PYTHONPATH=REPO))
  assert proc.returncode == 0, proc.stderr[-3000:]
  found = {}
  for name in outputs:
    with open(os.path.join(destination, name), encoding="utf-8") as f:
      found[name] = f.read()
  return found


def assert_predicts_again(output_dir, destination, script, outputs):
  """`predict_again` gives the run's own `outputs`, byte for byte."""
  again = predict_again(output_dir, destination, script, outputs)
  for name, text in again.items():
    with open(os.path.join(output_dir, name), encoding="utf-8") as f:
      assert text == f.read(), name
