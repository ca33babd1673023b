"""Tiny, valid inputs for every script, and helpers to run the real scripts.

`make_inputs(directory)` writes a small vocabulary, a matching
bert_config.json, a checkpoint of that model and one of another shape,
pretraining TFRecords, a GLUE (CoLA) data dir, a SQuAD file and plain text,
all tiny enough that a script reaches (and fails at) its input checks in a
few seconds. `run_script(name, args)` runs `python <name>.py args...` from
the repository root as a user would, CPU only; `run_in_process(name, args)`
runs the same script's `main` in this process (no 7-8 s TensorFlow import)
and returns the same kind of result.
"""

import contextlib
import importlib
import io
import json
import os
import signal
import subprocess
import traceback

from tests import warm_python
from tests.golden import REPO_ROOT

WORDS = ("the a of and to in is was it he she they we you that this on for "
         "with as at by from or an be are were has had have not but all "
         "one two three red green blue key what who where why how film good "
         "bad very story movie great little big day night").split()
# Google's layout: [PAD], [unused*], then [UNK] [CLS] [SEP] [MASK] at 100-103.
VOCAB = (["[PAD]"] + ["[unused%d]" % i for i in range(99)] +
         ["[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS +
         [c for c in "bcdefghijklmnopqrstuvwxyz.,?!"] +
         ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"])

SEQ = 16
MAX_PRED = 4


def config_dict(**overrides):
  config = {"vocab_size": len(VOCAB), "hidden_size": 16,
            "num_hidden_layers": 1, "num_attention_heads": 2,
            "intermediate_size": 32, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
            "max_position_embeddings": 32, "type_vocab_size": 2,
            "initializer_range": 0.02}
  config.update(overrides)
  return config


def write_json(path, value):
  with open(path, "w") as f:
    json.dump(value, f)
  return str(path)


def edit_model_json(directory, edit):
  """Rewrites directory/model.json as `edit(record)` leaves the record."""
  path = os.path.join(directory, "model.json")
  with open(path) as f:
    record = json.load(f)
  edit(record)
  write_json(path, record)


def write_text(path, text, mode="w"):
  encoding = None if "b" in mode else "utf-8"
  with open(path, mode, encoding=encoding) as f:
    f.write(text)
  return str(path)


def _checkpoint(config, prefix, step=None):
  """Writes a checkpoint (original names) of a BertModel of `config`."""
  import numpy as np  # pylint: disable=g-import-not-at-top
  import modeling  # pylint: disable=g-import-not-at-top
  model = modeling.BertModel(modeling.BertConfig.from_dict(config))
  ids = np.ones([1, 4], np.int32)
  model({"input_ids": ids, "input_mask": ids, "token_type_ids": 0 * ids},
        training=False)
  variables = modeling.original_variable_names(model)
  if step is None:
    return modeling.write_checkpoint(variables, prefix)
  return modeling.save_checkpoint(variables, prefix, step)


def _pretraining_records(path, seq_length, max_pred, num_records=8):
  from tests.pretraining import records  # pylint: disable=g-import-not-at-top
  return records.write_records(path, num_records, seq_length=seq_length,
                               max_pred=max_pred, vocab_size=len(VOCAB))


def make_inputs(directory):
  """Writes every valid input; returns {name: path}."""
  d = str(directory)
  p = {"dir": d}
  p["vocab"] = write_text(os.path.join(d, "vocab.txt"),
                          "\n".join(VOCAB) + "\n")
  p["config"] = write_json(os.path.join(d, "bert_config.json"),
                           config_dict())
  p["ckpt"] = _checkpoint(config_dict(), os.path.join(d, "ckpt",
                                                      "bert_model.ckpt"))
  other = config_dict(hidden_size=24, intermediate_size=48)
  p["other_ckpt"] = _checkpoint(other, os.path.join(d, "other",
                                                    "bert_model.ckpt"))
  p["other_out"] = os.path.join(d, "other_out")
  _checkpoint(other, p["other_out"], step=3)
  p["records"] = os.path.join(d, "records.tfrecord")
  _pretraining_records(p["records"], SEQ, MAX_PRED)
  p["text"] = write_text(os.path.join(d, "corpus.txt"),
                         "the film was good .\nit is a great story .\n\n"
                         "they had a bad day .\nwho was the key ?\n")
  p["glue"] = os.path.join(d, "cola")
  os.makedirs(p["glue"])
  rows = ["src\t%d\t*\t%s" % (i % 2, s) for i, s in enumerate(
      ["the film was good", "a bad movie", "great story", "very bad day",
       "it was red", "the key is blue", "good night", "we are one"])]
  for name in ("train.tsv", "dev.tsv"):
    write_text(os.path.join(p["glue"], name), "\n".join(rows) + "\n")
  write_text(os.path.join(p["glue"], "test.tsv"),
             "id\tsentence\n" + "\n".join(
                 "%d\t%s" % (i, r.split("\t")[3]) for i, r in enumerate(rows))
             + "\n")
  squad = {"version": "1.1", "data": [{"title": "t", "paragraphs": [
      {"context": "the key is red and the day was good",
       "qas": [{"id": "q%d" % i, "question": "what is the key ?",
                "answers": [{"text": "red", "answer_start": 11}]}]}
      for i in range(4)]}]}
  p["squad"] = write_json(os.path.join(d, "squad.json"), squad)
  qas = squad["data"][0]["paragraphs"][1]["qas"]
  qas.append(dict(qas[0], id="q0"))  # The id of paragraphs[0]'s question.
  p["squad_dup"] = write_json(os.path.join(d, "squad_dup.json"), squad)
  _bad_inputs(d, p)
  return p


def _bad_inputs(d, p):
  """Broken variants of the inputs above, one fault each."""
  j = lambda name: os.path.join(d, name)
  p["config_not_json"] = write_text(j("not_json.json"), '{"vocab_size": 10,')
  p["config_heads"] = write_json(j("heads.json"), config_dict(hidden_size=15))
  no_layers = config_dict()
  del no_layers["num_hidden_layers"]  # BERT-base's 12 by default.
  p["config_no_layers"] = write_json(j("no_layers.json"), no_layers)
  p["ckpt_2_layers"] = _checkpoint(config_dict(num_hidden_layers=2),
                                   j(os.path.join("ckpt2", "bert_model.ckpt")))
  p["config_negative"] = write_json(j("negative.json"),
                                    config_dict(intermediate_size=-4))
  p["vocab_too_big"] = write_text(j("big_vocab.txt"), "\n".join(
      VOCAB + ["extra%d" % i for i in range(5)]) + "\n")
  p["vocab_not_utf8"] = write_text(
      j("bad_vocab.txt"), ("\n".join(VOCAB[:120]) + "\n").encode() +
      b"\xff\xfe bad\n", mode="wb")
  p["vocab_without_cls"] = write_text(j("no_cls_vocab.txt"), "\n".join(
      v for v in VOCAB if v != "[CLS]") + "\n")
  p["records_seq20"] = j("seq20.tfrecord")
  _pretraining_records(p["records_seq20"], 20, MAX_PRED, num_records=2)
  p["records_pred5"] = j("pred5.tfrecord")
  _pretraining_records(p["records_pred5"], SEQ, 5, num_records=2)
  with open(p["records"], "rb") as f:
    data = f.read()
  from tests.pretraining import records  # pylint: disable=g-import-not-at-top
  offsets = records.record_offsets(p["records"])
  p["records_truncated"] = write_text(j("truncated.tfrecord"),
                                      data[:offsets[5] + 30], mode="wb")
  corrupt = bytearray(data)
  corrupt[offsets[3] + 40] ^= 0xFF  # Inside record 3's payload: bad CRC.
  p["records_corrupt"] = write_text(j("corrupt.tfrecord"), bytes(corrupt),
                                    mode="wb")
  p["empty_dir"] = j("empty_dir")
  os.makedirs(p["empty_dir"])


# How a file read back may be damaged: emptied (a full disk), cut short (a
# copy or write interrupted), random bytes (anything else).
DAMAGE = ("empty", "truncated", "random")


def damage_file(path, how):
  """Rewrites the file at `path` damaged as `how` (one of DAMAGE)."""
  with open(path, "rb") as f:
    data = f.read()
  data = {"empty": b"", "truncated": data[:len(data) // 2],
          "random": bytes(range(256))[::5] * 9}[how]
  with open(path, "wb") as f:
    f.write(data)


def flag_args(**values):
  """["--name=value", ...] for a script's command line."""
  return ["--%s=%s" % kv for kv in values.items()]


def tiny_model_files(directory, words):
  """Writes vocab.txt ([PAD] [UNK] [CLS] [SEP] + words) and a matching
  1-layer, hidden-8 bert_config.json in `directory`; returns their paths."""
  vocab = os.path.join(str(directory), "vocab.txt")
  tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + list(words)
  write_text(vocab, "".join(t + "\n" for t in tokens))
  config = write_json(os.path.join(str(directory), "bert_config.json"), {
      "vocab_size": len(tokens), "hidden_size": 8, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 16,
      "max_position_embeddings": 16, "type_vocab_size": 2})
  return vocab, config


def script_env():
  env = dict(os.environ)
  env["PYTHONPATH"] = REPO_ROOT + os.pathsep + env.get("PYTHONPATH", "")
  env["CUDA_VISIBLE_DEVICES"] = ""
  env["TF_CPP_MIN_LOG_LEVEL"] = "2"
  return env


def run_script(script, args, timeout=300):
  """Runs `python <script> args` from the repo root; a CompletedProcess.
  The process is tests/warm_python.py's (TensorFlow imported before the
  fork; tests/reliability/one_line_test.py starts the real interpreter)."""
  return subprocess.run(
      [warm_python.command(), os.path.join(REPO_ROOT, script)] + list(args),
      cwd=REPO_ROOT, env=script_env(), capture_output=True, text=True,
      timeout=timeout, check=False)


def finish(procs, timeout=240):
  """Waits for every Popen in `procs` (stderr piped); returns (exit codes,
  stderr texts). Kills every process still running on any failure."""
  errors = []
  try:
    for proc in procs:
      errors.append(proc.communicate(timeout=timeout)[1])
  finally:
    for proc in procs:
      if proc.poll() is None:
        proc.kill()
        proc.communicate()
  return [p.returncode for p in procs], errors


def error_line(result):
  """The `error: ...` line of a failed script run; asserts it is clean.

  A clean failure: exit status 1, no Python traceback on stderr, and exactly
  one line starting with "error: ".
  """
  err = result.stderr
  detail = "exit %s\nstderr tail:\n%s" % (result.returncode, err[-3000:])
  assert "Traceback (most recent call last)" not in err, detail
  assert result.returncode == 1, detail
  lines = [l for l in err.splitlines() if l.startswith("error: ")]
  assert len(lines) == 1, detail
  return lines[0]


# Scripts whose `main(_)` is `<main module>.<function>(FLAGS)` on the flags of
# `<flags module>.define_flags()`; `run_in_process` runs exactly that on a
# fresh FlagValues. (Importing bert_tf2.scripts.X itself would define X's
# flags on the global FLAGS, which clash between scripts.)
IN_PROCESS = {
    "run_classifier.py": ("bert_tf2.classifier.flags",
                          "bert_tf2.classifier.pipeline", "run"),
    "run_squad.py": ("bert_tf2.squad.flags", "bert_tf2.squad.job",
                     "run"),
    "run_ner.py": ("bert_tf2.ner.flags", "bert_tf2.ner.job", "run"),
    "run_pretraining.py": ("bert_tf2.pretraining.flags",
                           "bert_tf2.pretraining.run", "run_pretraining"),
    "extract_features.py": ("bert_tf2.feature_extraction.flags",
                            "bert_tf2.feature_extraction.pipeline", "run"),
    "create_pretraining_data.py": ("bert_tf2.pretraining_data.flags",
                                   "bert_tf2.pretraining_data.pipeline",
                                   "run_from_flags"),
}


def _check_script_main(script, flags_module, main_module, function):
  """Asserts bert_tf2/scripts/<script> defines those flags and its main
  calls that function on FLAGS, or on settings made from them; returns
  None, or the name of the `finetune` function that makes the settings
  (`run_settings` of the fine-tuning scripts, `Settings.from_flags`), so
  the in-process run is the script's."""
  path = os.path.join(REPO_ROOT, "bert_tf2", "scripts", script)
  with open(path, encoding="utf-8") as f:
    source = f.read()
  package, name = flags_module.rsplit(".", 1)
  assert "from %s import %s as " % (package, name) in source, script
  package, name = main_module.rsplit(".", 1)
  assert "from %s import %s" % (package, name) in source, script
  main = source[source.index("def main("):source.index("def run(")]
  # The fine-tuning scripts turn FLAGS into typed settings at the edge.
  for maker, call in (("run_settings", "run_settings(FLAGS, REQUIRED)"),
                      ("Settings.from_flags", "Settings.from_flags(FLAGS)")):
    if "%s(finetune.%s)" % (function, call) in main:
      return maker
  assert "%s(FLAGS)" % function in main, (script, main)
  return None


@contextlib.contextmanager
def _process_state_kept():
  """Restores what a script's main may change in this process: environment,
  cwd, SIGTERM/SIGINT handlers, absl verbosity; checks no tf.distribute
  strategy is left entered."""
  from absl import logging  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  environ = dict(os.environ)
  cwd = os.getcwd()
  handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
  verbosity = logging.get_verbosity()
  try:
    yield
  finally:
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    for s, handler in handlers.items():
      signal.signal(s, handler)
    logging.set_verbosity(verbosity)
  assert not tf.distribute.has_strategy(), "a strategy was left entered"


def run_in_process(script, args, env=None):
  """Runs `script`'s main on `args` here, as `python <script> args` would.

  The flags are parsed into a fresh absl FlagValues (the global FLAGS is
  untouched), main runs under `bert_tf2.common.cli`'s guard (an InputError
  becomes `error: <message>` on stderr and exit status 1) and any other
  exception is printed as a traceback with status 1, as Python would.
  `env`: environment variables for the run, {name: value or None to unset};
  the environment is restored afterwards.

  Returns:
    subprocess.CompletedProcess with returncode, stdout and stderr.
  """
  from absl import flags  # pylint: disable=g-import-not-at-top
  from bert_tf2.common import cli  # pylint: disable=g-import-not-at-top
  flags_module, main_module, function = IN_PROCESS[script]
  settings = _check_script_main(script, flags_module, main_module, function)
  values = flags.FlagValues()
  importlib.import_module(flags_module).define_flags(values)
  main = getattr(importlib.import_module(main_module), function)
  argv = [script] + list(args)
  values(argv)
  stdout, stderr = io.StringIO(), io.StringIO()
  returncode = 0
  with _process_state_kept(), contextlib.redirect_stdout(stdout), \
      contextlib.redirect_stderr(stderr):
    for name, value in (env or {}).items():
      if value is None:
        os.environ.pop(name, None)
      else:
        os.environ[name] = value
    try:
      if settings:
        from bert_tf2 import finetune  # pylint: disable=g-import-not-at-top
        make = (finetune.run_settings if settings == "run_settings"
                else finetune.Settings.from_flags)
        run_main = lambda _: main(make(values))
      else:
        run_main = lambda _: main(values)
      cli._guarded(run_main, values)(argv)  # pylint: disable=protected-access
    except SystemExit as e:
      returncode = e.code if isinstance(e.code, int) else 1
    except Exception:  # pylint: disable=broad-except
      traceback.print_exc()
      returncode = 1
  return subprocess.CompletedProcess(argv, returncode, stdout.getvalue(),
                                     stderr.getvalue())
