"""run_classifier.py and run_squad.py: bad input -> one clear line.

Issue 9 item 1 end to end through the real scripts: bad or inconsistent
bert_config.json, vocabulary larger than the config, a checkpoint of another
shape (variable and both shapes), missing files, an output_dir holding
another model's checkpoint (left untouched), and a batch size not divisible
across replicas x accumulation steps. One case per script runs
`python <script>.py` in a subprocess as a user does; the others run the
script's main in this process (`fixtures.run_in_process`: same flags, same
error line and exit status, without a 7-8 s TensorFlow import each).
"""

import hashlib
import os

import pytest

from tests.reliability import fixtures


def _classifier_args(p, out, **flags):
  values = dict(task_name="cola", do_train="true", data_dir=p["glue"],
                vocab_file=p["vocab"], bert_config_file=p["config"],
                output_dir=os.path.join(p["dir"], out), max_seq_length=16,
                train_batch_size=2, num_train_epochs=1.0)
  values.update(flags)
  return fixtures.flag_args(**values)


def _squad_args(p, out, **flags):
  values = dict(do_train="true", train_file=p["squad"],
                vocab_file=p["vocab"], bert_config_file=p["config"],
                output_dir=os.path.join(p["dir"], out), max_seq_length=32,
                doc_stride=8, max_query_length=8, train_batch_size=2,
                num_train_epochs=1.0)
  values.update(flags)
  return fixtures.flag_args(**values)


def _checkpoint_digest(directory):
  """Hash of the checkpoint files (state file and model.ckpt-*)."""
  h = hashlib.sha256()
  for name in sorted(os.listdir(directory)):
    if name == "checkpoint" or name.startswith("model.ckpt"):
      h.update(name.encode())
      with open(os.path.join(directory, name), "rb") as f:
        h.update(f.read())
  return h.hexdigest()


CASES = [
    ("run_classifier.py", _classifier_args, "config_negative_size",
     lambda p: dict(bert_config_file=p["config_negative"]),
     ["negative.json", "intermediate_size", "-4"]),
    ("run_classifier.py", _classifier_args, "vocab_larger_than_config",
     lambda p: dict(vocab_file=p["vocab_too_big"]),
     ["--vocab_file=", "big_vocab.txt", "has %d tokens" % (
         len(fixtures.VOCAB) + 5), "vocab_size=%d" % len(fixtures.VOCAB)]),
    ("run_classifier.py", _classifier_args, "checkpoint_of_another_shape",
     lambda p: dict(init_checkpoint=p["other_ckpt"]),
     ["--init_checkpoint=", "bert_config.json says hidden_size=16 but the "
      "checkpoint has 24; intermediate_size=32 but the checkpoint has 48"]),
    # Issue 46: the layer count too (a 1-layer checkpoint trained 11 random
    # layers; a deeper checkpoint lost its upper layers), before any output.
    ("run_classifier.py", _classifier_args, "config_without_num_hidden_layers",
     lambda p: dict(bert_config_file=p["config_no_layers"],
                    init_checkpoint=p["ckpt"]),
     ["--init_checkpoint=", "no_layers.json says num_hidden_layers=12 but "
      "the checkpoint has 1"]),
    ("run_squad.py", _squad_args, "checkpoint_with_more_layers",
     lambda p: dict(init_checkpoint=p["ckpt_2_layers"]),
     ["--init_checkpoint=", "bert_config.json says num_hidden_layers=1 but "
      "the checkpoint has 2"]),
    # Issue 46: two questions of one id lost an answer in predictions.json;
    # refused naming the file and id, the predict file before training.
    ("run_squad.py", _squad_args, "duplicate_id_in_train_file",
     lambda p: dict(train_file=p["squad_dup"]),
     ["squad_dup.json: question id 'q0' is used twice "
      "(data[0].paragraphs[0].qas[0] and data[0].paragraphs[1].qas[1])"]),
    ("run_squad.py", _squad_args, "duplicate_id_in_predict_file",
     lambda p: dict(do_predict="true", predict_file=p["squad_dup"]),
     ["squad_dup.json: question id 'q0' is used twice"]),
    # Issue 46: ".tmp-export" made a 248-character name too long only
    # after training.
    ("run_classifier.py", _classifier_args, "export_dir_name_too_long",
     lambda p: dict(export_dir=os.path.join(p["dir"], "e" * 248)),
     ["--export_dir=", "is 248 bytes, 259 with the 11-character temporary "
      "suffix"]),
    # Issue 38: flag ranges, checked before anything is written.
    ("run_classifier.py", _classifier_args, "negative_learning_rate",
     lambda p: dict(learning_rate=-1), ["--learning_rate=-1.0: must be >= 0"]),
    ("run_classifier.py", _classifier_args, "warmup_proportion_above_one",
     lambda p: dict(warmup_proportion=2),
     ["--warmup_proportion=2.0: must be in [0, 1]"]),
    ("run_classifier.py", _classifier_args, "negative_epochs",
     lambda p: dict(num_train_epochs=-1),
     ["--num_train_epochs=-1.0: must be > 0"]),
    # Issue 46 item 10: inf was accepted (the run stopped on NaN and left
    # predictor/ and train.tf_record); refused with nan, up front.
    ("run_classifier.py", _classifier_args, "infinite_learning_rate",
     lambda p: dict(learning_rate="inf"),
     ["--learning_rate=inf: must be >= 0 and finite"]),
    ("run_classifier.py", _classifier_args, "nan_learning_rate",
     lambda p: dict(learning_rate="nan"),
     ["--learning_rate=nan: must be >= 0 and finite"]),
    ("run_squad.py", _squad_args, "negative_learning_rate",
     lambda p: dict(learning_rate=-1e-5),
     ["--learning_rate=-1e-05: must be >= 0"]),
    ("run_classifier.py", _classifier_args, "export_dir_under_a_file",
     lambda p: dict(export_dir=os.path.join(p["vocab"], "saved_model")),
     ["--export_dir=", "vocab.txt", "not a directory"]),
    ("run_classifier.py", _classifier_args, "data_dir_without_train_file",
     lambda p: dict(data_dir=p["empty_dir"]),
     ["empty_dir", "train.tsv", "not found"]),
    ("run_classifier.py", _classifier_args, "batch_not_divisible",
     lambda p: dict(train_batch_size=3, gradient_accumulation_steps=2),
     ["--train_batch_size=3", "not divisible", "replicas"]),
    ("run_classifier.py", _classifier_args, "output_dir_of_another_model",
     lambda p: dict(output_dir=p["other_out"]),
     ["--output_dir=", "holds a checkpoint of a different model"]),
    ("run_squad.py", _squad_args, "config_heads_not_dividing_hidden",
     lambda p: dict(bert_config_file=p["config_heads"]),
     ["heads.json", "hidden_size (15)", "num_attention_heads (2)"]),
    ("run_squad.py", _squad_args, "train_file_missing",
     lambda p: dict(train_file=os.path.join(p["dir"], "missing.json")),
     ["--train_file=", "missing.json", "not found"]),
    ("run_squad.py", _squad_args, "vocab_not_utf8",
     lambda p: dict(vocab_file=p["vocab_not_utf8"]),
     ["--vocab_file=", "bad_vocab.txt", "line 121", "UTF-8"]),
    ("run_squad.py", _squad_args, "output_dir_of_another_model",
     lambda p: dict(output_dir=p["other_out"]),
     ["--output_dir=", "holds a checkpoint of a different model"]),
]

# The cases run as real subprocesses (one per script); the rest in-process.
SUBPROCESS_CASES = {("run_classifier.py", "output_dir_of_another_model"),
                    ("run_squad.py", "output_dir_of_another_model")}


@pytest.mark.parametrize("script,make_args,name,change,expected", CASES,
                         ids=["%s-%s" % (c[0][:-3], c[2]) for c in CASES])
def test_bad_input_is_one_clear_error(inputs, script, make_args, name,
                                      change, expected):
  other_out = _checkpoint_digest(inputs["other_out"])
  other_files = sorted(os.listdir(inputs["other_out"]))
  out = "%s_%s" % (script[:-3], name)
  run = (fixtures.run_script if (script, name) in SUBPROCESS_CASES
         else fixtures.run_in_process)
  result = run(script, make_args(inputs, out, **change(inputs)))
  line = fixtures.error_line(result)
  for part in expected:
    assert part in line, (part, line)
  # No work was lost: another model's checkpoints are left as they were,
  # and a refused run wrote no checkpoint.
  assert _checkpoint_digest(inputs["other_out"]) == other_out
  # ... and nothing new (records, results) was written beside them.
  assert sorted(os.listdir(inputs["other_out"])) == other_files
  out_dir = os.path.join(inputs["dir"], out)
  assert not os.path.exists(out_dir) or not any(
      n.startswith("model.ckpt") for n in os.listdir(out_dir))
  # A refused run leaves nothing behind (issue 38: train.tf_record and
  # predictor/ were left by a checkpoint of another shape).
  if name != "output_dir_of_another_model":
    assert not os.path.exists(out_dir) or not os.listdir(out_dir), (
        os.listdir(out_dir))


def test_classifier_resume_with_another_batch_shape_is_refused(inputs):
  """Issue 46 item 6 through the fine-tuning driver: refused before
  anything is written (records, assets, checkpoints unchanged)."""
  out = os.path.join(inputs["dir"], "classifier_shape")
  args = lambda **f: _classifier_args(inputs, "classifier_shape", **f)  # pylint: disable=unnecessary-lambda-assignment
  assert fixtures.run_in_process("run_classifier.py",
                                 args()).returncode == 0
  before = {n: os.path.getmtime(os.path.join(out, n))
            for n in os.listdir(out)}
  line = fixtures.error_line(fixtures.run_in_process(
      "run_classifier.py", args(num_train_epochs=2.0, max_seq_length=12)))
  assert line.startswith(
      "error: --max_seq_length=12: --output_dir=%s holds model.ckpt-4, "
      "trained with --max_seq_length=16 (batch_shape.json)" % out), line
  assert {n: os.path.getmtime(os.path.join(out, n))
          for n in os.listdir(out)} == before
