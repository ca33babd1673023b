"""One answer on every path of multiple choice: the same raw (context,
choices) through run_multiple_choice's --do_predict (test_results.tsv),
the raw-string Keras model's `predict` (`bert_tf2.models.load(
output_dir)`: nothing re-supplied), `models.load_predictor(output_dir)`,
the SavedModel loaded in a fresh process that imports only tensorflow and
tensorflow_text, and the Python predictor: the same choice, probabilities
to 1e-5. Dropping the recorded max_seq_length (16; the default is 128)
from the output_dir's model.json changes the answers.

Inputs: a context far longer than max_seq_length (longest-first pair
truncation; multiple choice does not window), CJK, accents, an empty
choice and an empty context (the script's reader refuses empty texts, so
those go through the three other paths only)."""

import json
import os

import keras
import numpy as np
import pytest

import modeling
import tokenization
from bert_tf2 import models
from bert_tf2.finetune import driver
from bert_tf2.multiple_choice import flags as mc_flags
from bert_tf2.multiple_choice.job import MultipleChoiceJob
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.multiple_choice.predictor import MultipleChoicePredictor
from bert_tf2.runner import checkpoints
from tests.common import cross_path
from tests.common import tiny_dir

pytestmark = pytest.mark.slow
MAX_SEQ_LENGTH = 16
LONG = " ".join(["the cat sat on the mat , bob met ann in paris ."] * 6)
# (context, choices, label): labels only for the script's reader.
FILE_EXAMPLES = [
    (LONG, ["a dog ran", "the cat sat . " * 5], 0),
    ("江泽民在北京。", ["北京", "the mat"], 1),
    ("Angéla Mërkel visitéd Pâris", ["ÀNN met BÖB", "a cat"], 0),
    ("bob met ann", ["ann met bob in paris", "the dog"], 1)]
# Texts the script's reader refuses (empty), for the other paths.
EXTRA_EXAMPLES = [("", ["a cat", "the dog"]), ("the cat", ["", "sat"])]
EXAMPLES = [(c, ch) for c, ch, _ in FILE_EXAMPLES] + EXTRA_EXAMPLES

_SERVE = """
out = serve(context=tf.constant(args["contexts"]),
            choices=tf.constant(args["choices"]))
print("RESULT" + json.dumps({"probabilities": out["probabilities"].numpy().tolist(),
                             "label": out["label"].numpy().tolist()}))
"""

@pytest.fixture(scope="module")
def run(bfloat16_cpu, tmp_path_factory):
  """(settings, the trained BertMultipleChoice of the exported checkpoint)."""
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("mc_paths"))
  ckpt = cross_path.spread_checkpoint(os.path.join(root, "ckpt"),
                                     BertMultipleChoice)
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  for name in ("train.jsonl", "test.jsonl"):
    with open(os.path.join(data_dir, name), "w", encoding="utf-8") as f:
      for context, choices, label in FILE_EXAMPLES:
        f.write(json.dumps({"context": context, "choices": choices,
                            "label": label}, ensure_ascii=False) + "\n")
  s = mc_flags.default_settings(
      data_dir=data_dir, vocab_file=os.path.join(ckpt, "vocab.txt"),
      bert_config_file=os.path.join(ckpt, "bert_config.json"),
      init_checkpoint=os.path.join(ckpt, "bert_model.ckpt"),
      output_dir=os.path.join(root, "out"), do_train=True, do_predict=True,
      max_seq_length=MAX_SEQ_LENGTH, train_batch_size=2, learning_rate=1e-3,
      num_train_epochs=1.0, classifier_dropout_prob=0.0,
      export_dir=os.path.join(root, "export"))
  driver.run(MultipleChoiceJob(s))
  model = BertMultipleChoice(tiny_dir.config(), classifier_dropout_prob=0.0)
  report = modeling.init_from_checkpoint(
      model, checkpoints.latest_checkpoint(s.output_dir))
  assert not report.not_loaded
  return s, model


def _softmax(logits):
  e = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
  return e / e.sum(-1, keepdims=True)


def _script(s):
  """test_results.tsv: probabilities [len(FILE_EXAMPLES), 2]."""
  return np.loadtxt(os.path.join(s.output_dir, "test_results.tsv"))


def _keras(directory):
  logits = models.load(directory).predict(
      ([c for c, _ in EXAMPLES], [ch for _, ch in EXAMPLES]), verbose=0)
  return _softmax(np.asarray(logits, np.float64))


def _loaded(directory):
  answers = models.load_predictor(directory).predict(
      ([c for c, _ in EXAMPLES], [ch for _, ch in EXAMPLES]))
  return (np.array([a["probabilities"] for a in answers]),
          [a["label"] for a in answers])


def _python(s, model):
  predictor = MultipleChoicePredictor(
      model, tokenization.FullTokenizer(s.vocab_file, do_lower_case=True),
      MAX_SEQ_LENGTH)
  return np.stack([predictor.predict(c, ch) for c, ch in EXAMPLES])


def _saved_model(s):
  out = cross_path.serve_in_fresh_process(
      s.export_dir, _SERVE, {"contexts": [c for c, _ in EXAMPLES],
                             "choices": [ch for _, ch in EXAMPLES]})
  return np.array(out["probabilities"]), out["label"]


def test_every_path_gives_the_same_choice_and_probabilities(run):
  s, model = run
  python = _python(s, model)
  # The inputs are not all alike: the model separates them.
  assert np.ptp(python[:, 0]) > 0.05
  script = _script(s)
  np.testing.assert_allclose(script, python[:len(FILE_EXAMPLES)], atol=1e-5)
  np.testing.assert_allclose(_keras(s.output_dir), python, atol=1e-5)
  loaded, loaded_labels = _loaded(s.output_dir)
  np.testing.assert_allclose(loaded, python, atol=1e-5)
  served, labels = _saved_model(s)
  assert loaded_labels == labels
  np.testing.assert_allclose(served, python, atol=1e-5)
  assert labels == np.argmax(python, -1).tolist()
  assert np.argmax(script, -1).tolist() == labels[:len(FILE_EXAMPLES)]


def test_dropping_the_recorded_length_changes_the_answers(run, tmp_path):
  s, model = run
  directory = cross_path.without_setting(
      s.output_dir, "preprocessor", "max_seq_length", str(tmp_path / "run"))
  python = _python(s, model)
  # load_predictor answers from the same models.load.
  assert np.abs(_keras(directory) - python).max() > 1e-3


def test_do_predict_on_the_finished_run_needs_no_other_flag(run, tmp_path):
  """`run_multiple_choice.py --do_predict --output_dir=<run>`: every other flag is the
  record's; the predictions are the run's, byte for byte."""
  s, _ = run
  cross_path.assert_predicts_again(s.output_dir, str(tmp_path / "run"),
                                   "run_multiple_choice.py",
                                   ["test_results.tsv"])
