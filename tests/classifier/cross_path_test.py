"""Classifier: the same raw texts give the same answers on every path.

One tiny model is trained by run_classifier's pipeline (module fixture, two
steps) with --long_text=sliding_window --max_seq_length=12
--doc_stride=3, so that a long text spans many windows. Then the same
texts and pairs go through:
  script     run_classifier's --do_predict (test.tsv; test_results.tsv)
  keras      `bert_tf2.models.load(output_dir)` (a `TextModel` of a
             `BertPreprocessor` with the run's windows, from model.json)
             `.predict`
  saved      the exported SavedModel (serving_pair), loaded in a fresh
             process that imports only tensorflow and tensorflow_text
  predictor  `ClassifierPredictor.from_output_dir` (the Python predictor)
  loaded     `bert_tf2.models.load_predictor(output_dir).predict`
Nothing but the output_dir is handed to the Keras and Python paths.
Labels must be equal and probabilities equal to 1e-5 on every path;
dropping any one recorded setting from model.json changes them (or is
refused in one line).
"""

import json
import os
import random
import shutil
import subprocess

import keras
import numpy as np
import pytest

from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from bert_tf2 import models
from bert_tf2.common import InputError
from bert_tf2.classifier.predictor import ClassifierPredictor
from tests import warm_python
from tests.classifier import tiny_task
from tests.common import cross_path
from tests.reliability import fixtures

EXTRA = ["cafe", "muller", "sao", "paulo", "江", "泽", "民", "北", "京", ".",
         ","]
VOCAB = tiny_task.VOCAB + EXTRA
LABELS = ["no", "yes"]
SEQ, STRIDE = 12, 3
# Wide initial weights and two steps at a tiny rate: answers that vary
# from text to text (both labels), far from ties, learned or not.
CONFIG = dict(tiny_task.CONFIG, vocab_size=len(VOCAB), initializer_range=1.0)

LONG = " ".join("w%d" % ((7 * i) % 40) for i in range(40)) + " alpha w1."
PAIRS = [(LONG, ""), ("", ""), ("江泽民在北京。", ""),
         ("Café Müller in São Paulo, alpha.", ""),
         ("w1 w2 alpha", "w3 w4 w5 w6 w7 w8 w9"), (LONG, "w5 alpha w6"),
         ("w3 w4", "Café Müller")]


def _write_tsv(path, rows):
  with open(path, "w", encoding="utf-8") as f:
    f.write("label\ttext\tother\n")
    for row in rows:
      f.write("\t".join(row) + "\n")


def _example(rng, positive):
  words = rng.sample(tiny_task.WORDS, rng.randint(2, 14))
  if positive:
    words.insert(rng.randint(0, len(words)), "alpha")
  half = rng.randint(0, len(words))
  return ("yes" if positive else "no", " ".join(words[:half]) or "w0",
          " ".join(words[half:]))


@pytest.fixture(scope="module")
def trained(bfloat16_cpu, tmp_path_factory):
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("classifier_paths"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(2)
  _write_tsv(os.path.join(data_dir, "train.tsv"),
             [_example(rng, i % 2 == 0) for i in range(32)])
  _write_tsv(os.path.join(data_dir, "test.tsv"),
             [("no", a, b) for a, b in PAIRS])
  vocab_file = fixtures.write_text(os.path.join(root, "vocab.txt"),
                                   "\n".join(VOCAB) + "\n")
  config_file = fixtures.write_json(os.path.join(root, "bert_config.json"),
                                    CONFIG)
  options = default_options(
      task_name="tsv", data_dir=data_dir, vocab_file=vocab_file,
      bert_config_file=config_file, output_dir=os.path.join(root, "out"),
      text_a_column="text", text_b_column="other", label_column="label",
      label_list="no,yes", do_train=True, do_predict=True,
      max_seq_length=SEQ, long_text="sliding_window", doc_stride=STRIDE,
      train_batch_size=16, learning_rate=1e-5, num_train_epochs=1.0,
      save_checkpoints_steps=1000, export_dir=os.path.join(root, "export"))
  pipeline.run(options)
  return options


_SERVE = r"""
import json, sys
import tensorflow as tf, tensorflow_text  # noqa: F401 (registers ops)
export_dir, pairs = sys.argv[1], json.loads(sys.argv[2])
served = tf.saved_model.load(export_dir)
out = served.signatures["serving_pair"](
    text_a=tf.constant([a for a, _ in pairs]),
    text_b=tf.constant([b for _, b in pairs]))
mods = [m for m in sys.modules if m.split(".")[0] in (
    "bert_tf2", "modeling", "tokenization", "optimization")]
print(json.dumps({"probabilities": out["probabilities"].numpy().tolist(),
                  "labels": [x.decode() for x in out["label"].numpy()],
                  "num_windows": out["num_windows"].numpy().tolist(),
                  "precision": served.precision.numpy().decode(),
                  "modules": mods}))
"""


def _softmax(logits):
  e = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
  return e / np.sum(e, axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def paths(trained):
  options = trained
  with open(os.path.join(options.output_dir, "test_results.tsv")) as f:
    rows = iter([[float(x) for x in line.split("\t")]
                 for line in f if line.strip()])
    # An empty text_a is answered by every path (packed [CLS] [SEP]).
    script = np.array([next(rows) for _ in PAIRS])
    assert next(rows, None) is None
  # The raw-string Keras model of the run, from its output_dir alone.
  keras_model = models.load(options.output_dir)
  keras_logits = keras_model.predict(PAIRS, batch_size=3, verbose=0)
  done = subprocess.run(
      [warm_python.command(), "-c", _SERVE, options.export_dir,
       json.dumps(PAIRS)],
      capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""),
      cwd="/", check=False)
  assert done.returncode == 0, done.stderr[-3000:]
  served = json.loads(done.stdout.strip().splitlines()[-1])
  predictor = ClassifierPredictor.from_output_dir(options.output_dir)
  answers = predictor.predict(PAIRS)
  # The one call's predictor; its SavedModel served as the script's.
  loaded_predictor = models.load_predictor(options.output_dir)
  loaded = loaded_predictor.predict(PAIRS)
  with open(os.path.join(options.output_dir, "model.json")) as f:
    recorded = json.load(f)["precision"]
  return {
      "script": script,
      "keras": _softmax(np.asarray(keras_logits, np.float64)),
      "saved": np.array(served["probabilities"]),
      "saved_labels": served["labels"],
      "num_windows": served["num_windows"],
      "modules": served["modules"],
      "predictor": np.array([a["probabilities"] for a in answers]),
      "predictor_labels": [a["label"] for a in answers],
      "loaded": np.array([a["probabilities"] for a in loaded]),
      "loaded_labels": [a["label"] for a in loaded],
      "keras_model": keras_model,
      "precisions": {
          "recorded": recorded, "saved": served["precision"],
          "keras": keras_model.dtype_policy.compute_dtype,
          "predictor": predictor.precision,
          "loaded": loaded_predictor.model.dtype_policy.compute_dtype}}


def test_the_long_text_spans_many_windows(paths):
  assert paths["num_windows"][0] >= 5
  assert paths["num_windows"][5] >= 5
  assert paths["num_windows"][1] == 1


def test_every_path_gives_the_same_probabilities_and_labels(paths):
  script = paths["script"]
  assert script.shape == (len(PAIRS), 2)
  labels = [LABELS[i] for i in np.argmax(script, axis=-1)]
  for name in ("keras", "saved", "predictor", "loaded"):
    np.testing.assert_allclose(paths[name], script, atol=1e-5,
                               err_msg=name)
    assert [LABELS[i] for i in np.argmax(paths[name], -1)] == labels, name
  assert paths["saved_labels"] == labels
  assert paths["predictor_labels"] == labels
  assert paths["loaded_labels"] == labels
  # Answers vary: both labels occur, none near a tie.
  assert set(labels) == set(LABELS), script
  assert np.min(np.abs(script[:, 1] - 0.5)) > 1e-3, script


def test_every_path_answers_in_the_runs_precision_on_a_bfloat16_cpu(paths):
  # The module runs on a faked bfloat16 CPU (`bfloat16_cpu`), where "auto"
  # would pick bfloat16: the default is the run's recorded float32.
  assert paths["precisions"] == dict.fromkeys(paths["precisions"], "float32")


def test_do_predict_on_the_finished_run_needs_no_other_flag(trained,
                                                            tmp_path):
  """`run_classifier.py --do_predict --output_dir=<run>`: every other flag
  (data, columns, labels, length, windows, config, vocabulary) is the
  record's; the predictions are the run's, byte for byte."""
  cross_path.assert_predicts_again(trained.output_dir, str(tmp_path / "run"),
                                   "run_classifier.py", ["test_results.tsv"])


def test_a_flag_that_builds_another_model_is_one_line(trained, tmp_path):
  directory = str(tmp_path / "run")
  shutil.copytree(trained.output_dir, directory, ignore=shutil.ignore_patterns(
      "*.tf_record", "events.out.*", "test_results.tsv"))
  proc = subprocess.run(
      [warm_python.command(), os.path.join(cross_path.REPO,
                                           "run_classifier.py"),
       "--do_predict", "--output_dir=" + directory, "--max_seq_length=16",
       "--predict_batch_size=3"],
      capture_output=True, text=True, cwd=directory, timeout=600,
      env=dict(os.environ, PYTHONPATH=cross_path.REPO))
  assert proc.returncode == 1
  assert proc.stderr.strip().splitlines()[-1] == (
      "error: %s/model.json records --max_seq_length=%d; given "
      "--max_seq_length=16, which builds another model than the run's: "
      "leave it out, or train a new run" % (directory, SEQ))
  assert not os.path.exists(os.path.join(directory, "test_results.tsv"))


def test_the_saved_model_runs_without_the_project(paths):
  assert paths["modules"] == [], paths["modules"]


@pytest.mark.parametrize("section,key", [
    ("preprocessor", "long_text"), ("preprocessor", "doc_stride"),
    ("preprocessor", "max_seq_length"), ("model", "num_labels"),
    ("outputs", "labels")])
def test_dropping_a_recorded_setting_changes_the_answers(trained, paths,
                                                         tmp_path, section,
                                                         key):
  directory = cross_path.without_setting(trained.output_dir, section, key,
                                         str(tmp_path / "run"))
  try:
    answers = models.load_predictor(directory).predict(PAIRS)
  except InputError as e:  # Refused in one line: not the run's answers.
    assert "\n" not in str(e), str(e)
    return
  probabilities = np.array([a["probabilities"] for a in answers])
  labels = [a["label"] for a in answers]
  assert labels != paths["loaded_labels"] or np.abs(
      probabilities - paths["loaded"]).max() > 1e-3, key
