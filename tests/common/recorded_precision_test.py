"""A run answers in its recorded precision on every path, by default.

One tiny classifier is trained by run_classifier's pipeline with
--precision=bfloat16 (its --do_predict and --export_dir run in it), on a
faked CPU where precision="auto" would pick bfloat16 (`bfloat16_cpu`).
model.json records "precision": "bfloat16", and with nothing handed in
again `models.load`, `models.load_predictor`, `ClassifierPredictor.
from_output_dir` and the exported SavedModel all answer in bfloat16: the
same labels as the script on every clear case, probabilities within
bfloat16 round-off of its own. Dropping the recorded precision (or asking
float32) answers in float32, other numbers: the record is what acts.
"""

import json
import os
import random
import shutil

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.common import InputError
from tests.classifier import tiny_task
from tests.reliability import fixtures

TEXTS = ["w1 w2 alpha", "w3 w4 w5", "alpha w6 w7 w8", "w9", "w10 alpha w11",
         "w12 w13 w14 w15 w16", "alpha", "w2 w4 w6 w8"]
# bfloat16 keeps 8 bits of mantissa: probabilities move by up to ~0.01
# here; labels are compared where float32's margin is clear of that.
PROB_TOL = 0.03
CLEAR = 0.1


@pytest.fixture(scope="module")
def run(bfloat16_cpu, tmp_path_factory):
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("bfloat16_run"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(3)
  rows = []
  for i in range(32):
    words = rng.sample(tiny_task.WORDS, rng.randint(2, 10))
    if i % 2 == 0:
      words.insert(0, "alpha")
    rows.append(("yes" if i % 2 == 0 else "no", " ".join(words)))
  for name, data in (("train.tsv", rows), ("test.tsv",
                                           [("no", t) for t in TEXTS])):
    fixtures.write_text(os.path.join(data_dir, name), "label\ttext\n" + "".join(
        "%s\t%s\n" % row for row in data))
  vocab_file = fixtures.write_text(os.path.join(root, "vocab.txt"),
                                   "\n".join(tiny_task.VOCAB) + "\n")
  config_file = fixtures.write_json(
      os.path.join(root, "bert_config.json"),
      dict(tiny_task.CONFIG, initializer_range=1.0))
  options = default_options(
      task_name="tsv", data_dir=data_dir, vocab_file=vocab_file,
      bert_config_file=config_file, output_dir=os.path.join(root, "out"),
      text_a_column="text", label_column="label", label_list="no,yes",
      do_train=True, do_predict=True, max_seq_length=16,
      train_batch_size=16, learning_rate=1e-5, num_train_epochs=1.0,
      precision="bfloat16", export_dir=os.path.join(root, "export"))
  pipeline.run(options)
  with open(os.path.join(options.output_dir, "test_results.tsv")) as f:
    script = np.array([[float(x) for x in line.split("\t")]
                       for line in f if line.strip()])
  return options, script


def _probabilities(answers):
  return np.array([a["probabilities"] for a in answers])


def _same_answers(got, want):
  """got within bfloat16 round-off of want, the same argmax where want's
  margin is clear."""
  np.testing.assert_allclose(got, want, atol=PROB_TOL)
  clear = np.abs(want[:, 1] - want[:, 0]) > CLEAR
  assert clear.sum() >= 4, want
  np.testing.assert_array_equal(np.argmax(got, -1)[clear],
                                np.argmax(want, -1)[clear])


def test_the_run_records_its_precision(run):
  options, _ = run
  with open(os.path.join(options.output_dir, "model.json")) as f:
    assert json.load(f)["precision"] == "bfloat16"


def test_every_path_answers_in_the_recorded_precision(run):
  options, script = run
  directory = options.output_dir
  model = models.load(directory)
  assert model.task.compute_dtype == "bfloat16"
  keras_probs = tf.nn.softmax(model.predict(TEXTS, verbose=0)).numpy()
  loaded = models.load_predictor(directory)
  assert loaded.model.task.compute_dtype == "bfloat16"
  predictor = ClassifierPredictor.from_output_dir(directory)
  assert predictor.precision == "bfloat16"
  served = tf.saved_model.load(options.export_dir)
  assert served.precision.numpy().decode() == "bfloat16"
  saved = served.signatures["serving_default"](
      text_a=tf.constant(TEXTS))["probabilities"].numpy()
  for got in (keras_probs, _probabilities(loaded.predict(TEXTS)),
              _probabilities(predictor.predict(TEXTS)), saved):
    _same_answers(got, script)
  # The Keras model and its predictor are one model: identical answers.
  np.testing.assert_array_equal(_probabilities(loaded.predict(TEXTS)),
                                _probabilities(models.load_predictor(
                                    directory).predict(TEXTS)))


def _edited_copy(output_dir, destination, edit):
  """A copy of the run whose model.json is `edit(record)`; its path."""
  shutil.copytree(output_dir, destination, ignore=shutil.ignore_patterns(
      "*.tf_record", "events.out.*"))
  fixtures.edit_model_json(destination, edit)
  return destination


def test_dropping_the_recorded_precision_answers_in_float32(run, tmp_path):
  options, _ = run
  copy = _edited_copy(options.output_dir, str(tmp_path / "run"),
                      lambda record: record.pop("precision"))
  dropped = models.load_predictor(copy)
  assert dropped.model.task.compute_dtype == "float32"
  float32 = models.load_predictor(options.output_dir, precision="float32")
  recorded = models.load_predictor(options.output_dir)
  np.testing.assert_array_equal(_probabilities(dropped.predict(TEXTS)),
                                _probabilities(float32.predict(TEXTS)))
  assert not np.array_equal(_probabilities(recorded.predict(TEXTS)),
                            _probabilities(float32.predict(TEXTS)))
  assert ClassifierPredictor.from_output_dir(copy).precision == "float32"


def test_a_recorded_precision_of_another_kind_is_one_line(run, tmp_path):
  options, _ = run
  copy = _edited_copy(options.output_dir, str(tmp_path / "run"),
                      lambda record: record.update(precision="fp8"))
  path = os.path.join(copy, "model.json")
  with pytest.raises(InputError) as e:
    models.load(copy)
  assert str(e.value) == ('%s: "precision" is "fp8"; expected one of '
                          '"float32", "bfloat16", "float16"' % path)
