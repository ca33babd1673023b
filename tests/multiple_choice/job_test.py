"""End to end: run_multiple_choice's job on the driver on a tiny learnable task.

A JSONL task with 4 choices where the right choice is the one holding the
word "alpha"; a 2-layer hidden-32 BERT from scratch learns it in a few
dozen steps. Checks eval_results.txt, test_results.tsv, the SavedModel and
bad input.
"""

import json
import os
import random

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.multiple_choice import flags as mc_flags
from bert_tf2.finetune import driver
from bert_tf2.multiple_choice.job import MultipleChoiceJob
from tests.classifier import tiny_task

NUM_TEST = 11
pytestmark = pytest.mark.slow  # ~20 s of training on 2 loaded cores


def _examples(rng, n, labelled=True):
  out = []
  for _ in range(n):
    label = rng.randrange(4)
    choices = [" ".join(rng.sample(tiny_task.WORDS, 3)) for _ in range(4)]
    choices[label] += " alpha"
    obj = {"context": " ".join(rng.sample(tiny_task.WORDS, 4)),
           "choices": choices}
    if labelled:
      obj["label"] = label
    out.append(obj)
  return out


def _write_jsonl(path, objects):
  with open(path, "w", encoding="utf-8") as f:
    for obj in objects:
      f.write(json.dumps(obj) + "\n")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("mc"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(1)
  _write_jsonl(os.path.join(data_dir, "train.jsonl"), _examples(rng, 192))
  _write_jsonl(os.path.join(data_dir, "dev.jsonl"), _examples(rng, 40))
  test = _examples(rng, NUM_TEST, labelled=False)
  _write_jsonl(os.path.join(data_dir, "test.jsonl"), test)
  vocab_file = os.path.join(root, "vocab.txt")
  with open(vocab_file, "w") as f:
    f.write("\n".join(tiny_task.VOCAB) + "\n")
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(tiny_task.CONFIG, f)
  options = mc_flags.default_settings(
      data_dir=data_dir, vocab_file=vocab_file, bert_config_file=config_file,
      output_dir=os.path.join(root, "out"), do_train=True, do_eval=True,
      do_predict=True, max_seq_length=16, train_batch_size=16,
      learning_rate=2e-3, num_train_epochs=4.0, save_checkpoints_steps=100,
      classifier_dropout_prob=0.0, export_dir=os.path.join(root, "export"))
  driver.run(MultipleChoiceJob(options))
  return options, test


def test_eval_accuracy_well_above_chance(trained):
  options, _ = trained
  with open(os.path.join(options.output_dir, "eval_results.txt")) as f:
    results = dict(line.strip().split(" = ") for line in f if line.strip())
  assert set(results) >= {"eval_accuracy", "eval_loss", "global_step"}
  assert int(results["global_step"]) == 48
  assert float(results["eval_accuracy"]) >= 0.7   # chance: 0.25


def test_test_results_and_saved_model_agree(trained):
  options, test = trained
  with open(os.path.join(options.output_dir, "test_results.tsv")) as f:
    rows = np.array([[float(x) for x in line.split("\t")] for line in f])
  assert rows.shape == (NUM_TEST, 4)
  np.testing.assert_allclose(rows.sum(axis=1), 1., rtol=1e-5)
  serve = tf.saved_model.load(options.export_dir).signatures[
      "serving_default"]
  out = serve(context=tf.constant([t["context"] for t in test]),
              choices=tf.constant([t["choices"] for t in test]))
  np.testing.assert_allclose(out["probabilities"].numpy(), rows, rtol=1e-4,
                             atol=1e-6)


def test_bad_row_names_file_and_line(tmp_path, trained):
  options, _ = trained
  data_dir = tmp_path / "data"
  data_dir.mkdir()
  _write_jsonl(str(data_dir / "train.jsonl"), [
      {"context": "w1", "choices": ["w2", "w3"], "label": 0},
      {"context": "w1", "choices": ["w2", "w3"], "label": 2}])
  bad = vars(options).copy()
  bad.update(data_dir=str(data_dir), output_dir=str(tmp_path / "out"),
             do_eval=False, do_predict=False, export_dir=None)
  with pytest.raises(InputError, match=r"train.jsonl: line 2: label 2 is "
                     r"outside the 2 choices"):
    driver.run(MultipleChoiceJob(mc_flags.default_settings(**bad)))
