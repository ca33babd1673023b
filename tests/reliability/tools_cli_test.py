"""extract_features.py and create_pretraining_data.py: bad input -> one line.

Issue 9 item 1 end to end; the output file is never created for a refused
run. One case per script runs `python <script>.py` in a subprocess as a user
does; the others run the script's main in this process
(`fixtures.run_in_process`: same flags, same error line and exit status,
without a 7-8 s TensorFlow import each).
"""

import json
import os
import subprocess
import sys

import pytest

from tests.reliability import fixtures


def _extract_args(p, out, **flags):
  values = dict(input_file=p["text"], output_file=os.path.join(p["dir"], out),
                vocab_file=p["vocab"], bert_config_file=p["config"],
                init_checkpoint=p["ckpt"], layers="-1", max_seq_length=16,
                batch_size=2)
  values.update(flags)
  return fixtures.flag_args(**values)


def _data_args(p, out, **flags):
  values = dict(input_file=p["text"], output_file=os.path.join(p["dir"], out),
                vocab_file=p["vocab"], max_seq_length=16,
                max_predictions_per_seq=4, dupe_factor=1)
  values.update(flags)
  return fixtures.flag_args(**values)


CASES = [
    ("extract_features.py", _extract_args, "config_not_json",
     lambda p: dict(bert_config_file=p["config_not_json"]),
     ["not_json.json", "not valid JSON"]),
    ("extract_features.py", _extract_args, "vocab_larger_than_config",
     lambda p: dict(vocab_file=p["vocab_too_big"]),
     ["big_vocab.txt", "vocab_size"]),
    ("extract_features.py", _extract_args, "vocab_without_cls",
     lambda p: dict(vocab_file=p["vocab_without_cls"]),
     ["--vocab_file=", "no_cls_vocab.txt", "has no [CLS] token"]),
    ("extract_features.py", _extract_args, "checkpoint_of_another_shape",
     lambda p: dict(init_checkpoint=p["other_ckpt"]),
     ["--init_checkpoint=", "bert_config.json says hidden_size=16 but the "
      "checkpoint has 24; intermediate_size=32 but the checkpoint has 48"]),
    ("extract_features.py", _extract_args, "checkpoint_missing",
     lambda p: dict(init_checkpoint=os.path.join(p["dir"], "no", "x.ckpt")),
     ["--init_checkpoint=", "x.ckpt"]),
    ("create_pretraining_data.py", _data_args, "glob_matches_nothing",
     lambda p: dict(input_file=os.path.join(p["dir"], "nothing-*.txt")),
     ["--input_file", "nothing-*.txt", "matches no file"]),
    ("create_pretraining_data.py", _data_args, "input_is_a_directory",
     lambda p: dict(input_file=p["empty_dir"]),
     ["--input_file", "empty_dir", "directory"]),
    ("create_pretraining_data.py", _data_args, "vocab_not_utf8",
     lambda p: dict(vocab_file=p["vocab_not_utf8"]),
     ["--vocab_file=", "bad_vocab.txt", "line 121", "UTF-8"]),
]

# The cases run as real subprocesses (one per script); the rest in-process.
SUBPROCESS_CASES = {("extract_features.py", "checkpoint_of_another_shape"),
                    ("create_pretraining_data.py", "vocab_not_utf8")}


@pytest.mark.parametrize("script,make_args,name,change,expected", CASES,
                         ids=["%s-%s" % (c[0][:-3], c[2]) for c in CASES])
def test_bad_input_is_one_clear_error(inputs, script, make_args, name,
                                      change, expected):
  out = "%s_%s.out" % (script[:-3], name)
  run = (fixtures.run_script if (script, name) in SUBPROCESS_CASES
         else fixtures.run_in_process)
  result = run(script, make_args(inputs, out, **change(inputs)))
  line = fixtures.error_line(result)
  for part in expected:
    assert part in line, (part, line)
  assert not os.path.exists(os.path.join(inputs["dir"], out))


def test_evaluate_squad_official_arguments_and_missing_file(inputs):
  """evaluate_squad.py takes the official `DATA_FILE PRED_FILE` arguments;
  a missing file is one clear line, not absl's usage dump."""
  preds = fixtures.write_json(os.path.join(inputs["dir"], "preds.json"),
                              {"q0": "red", "q1": "blue"})
  result = fixtures.run_script("evaluate_squad.py", [inputs["squad"], preds])
  assert result.returncode == 0, result.stderr[-3000:]
  assert json.loads(result.stdout) == {"exact_match": 25.0, "f1": 25.0}
  missing = os.path.join(inputs["dir"], "missing.json")
  line = fixtures.error_line(fixtures.run_script(
      "evaluate_squad.py", ["--data_file=" + missing, "--pred_file=" + preds]))
  assert "--data_file=%s: file not found" % missing in line


def test_evaluate_squad_needs_no_tensorflow(inputs):
  """The evaluator is pure Python, as the official script: checking its
  local input files must not import TensorFlow (8 s of start-up)."""
  preds = fixtures.write_json(os.path.join(inputs["dir"], "preds2.json"),
                              {"q0": "red"})
  code = ("import runpy, sys\n"
          "sys.argv = ['evaluate_squad.py', %r, %r]\n"
          "try:\n"
          "  runpy.run_path('evaluate_squad.py', run_name='__main__')\n"
          "except SystemExit as e:\n"
          "  assert not e.code, e.code\n"
          "print('tensorflow imported:', 'tensorflow' in sys.modules)\n"
          % (inputs["squad"], preds))
  result = subprocess.run([sys.executable, "-c", code], cwd=fixtures.REPO_ROOT,
                          env=fixtures.script_env(), capture_output=True,
                          text=True, timeout=120, check=False)
  assert result.returncode == 0, result.stderr[-3000:]
  assert '"exact_match"' in result.stdout
  assert "tensorflow imported: False" in result.stdout
