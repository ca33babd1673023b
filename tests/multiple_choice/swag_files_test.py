"""run_multiple_choice on a --data_dir as SWAG ships it (train.csv,
val.csv, test.csv; no file flags), and test metrics (test_results.txt)
when the test file has labels, as run_ner."""

import csv
import os
import random

import keras
import numpy as np
import pytest

from bert_tf2.common import InputError
from bert_tf2.finetune import driver
from bert_tf2.multiple_choice import flags as mc_flags
from bert_tf2.multiple_choice.job import MultipleChoiceJob
from tests.classifier import tiny_task

HEADER = ["video-id", "fold-ind", "startphrase", "sent1", "sent2",
          "gold-source", "ending0", "ending1", "ending2", "ending3", "label"]


def _write_swag(path, rng, n, labelled=True):
  with open(path, "w", encoding="utf-8", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(HEADER if labelled else HEADER[:-1])
    for i in range(n):
      label = rng.randrange(4)
      endings = [" ".join(rng.sample(tiny_task.WORDS, 2)) for _ in range(4)]
      endings[label] += " alpha"
      sent1 = " ".join(rng.sample(tiny_task.WORDS, 3))
      row = ["v%d" % i, str(i), sent1 + " w1", sent1, "w1", "gold"] + endings
      writer.writerow(row + [label] if labelled else row)


def _results(path):
  with open(path) as f:
    return dict(line.strip().split(" = ") for line in f if line.strip())


def _settings(root, data_dir, **extra):
  vocab_file, config_file = tiny_task.write_model_files(root)
  return mc_flags.default_settings(**dict(dict(
      data_dir=data_dir, vocab_file=vocab_file, bert_config_file=config_file,
      output_dir=os.path.join(root, "out"), do_train=True, do_eval=True,
      do_predict=True, max_seq_length=16, train_batch_size=8,
      learning_rate=2e-3, num_train_epochs=1.0,
      classifier_dropout_prob=0.0), **extra))


@pytest.fixture(scope="module")
def swag_run(tmp_path_factory):
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("swag"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  _write_swag(os.path.join(data_dir, "train.csv"), random.Random(1), 32)
  # test.csv: val.csv with its labels, so the test metrics must equal the
  # eval metrics of the same (latest) checkpoint.
  for name in ("val.csv", "test.csv"):
    _write_swag(os.path.join(data_dir, name), random.Random(2), 12)
  s = _settings(root, data_dir)
  driver.run(MultipleChoiceJob(s))
  return s


@pytest.mark.slow
def test_swag_files_found_and_labelled_test_scored(swag_run):
  out = swag_run.output_dir
  assert swag_run.train_file == "train.jsonl"  # No file flag given.
  evaluated = _results(os.path.join(out, "eval_results.txt"))
  tested = _results(os.path.join(out, "test_results.txt"))
  assert sorted(tested) == ["global_step", "test_accuracy", "test_loss"]
  assert tested["global_step"] == evaluated["global_step"] == "4"
  assert float(tested["test_accuracy"]) == pytest.approx(
      float(evaluated["eval_accuracy"]), abs=1e-9)
  assert float(tested["test_loss"]) == pytest.approx(
      float(evaluated["eval_loss"]), abs=1e-5)
  # And they are test_results.tsv's probabilities against test.csv's labels.
  probabilities = np.loadtxt(os.path.join(out, "test_results.tsv"))
  with open(os.path.join(swag_run.data_dir, "test.csv")) as f:
    labels = [int(row["label"]) for row in csv.DictReader(f)]
  assert float(tested["test_accuracy"]) == pytest.approx(
      np.mean(np.argmax(probabilities, -1) == labels), abs=1e-9)


@pytest.mark.slow
def test_official_unlabelled_test_csv_gets_no_test_metrics(tmp_path):
  data_dir = str(tmp_path / "data")
  os.makedirs(data_dir)
  _write_swag(os.path.join(data_dir, "test.csv"), random.Random(3), 5,
              labelled=False)
  _write_swag(os.path.join(data_dir, "train.csv"), random.Random(4), 8)
  s = _settings(str(tmp_path), data_dir, do_eval=False)
  driver.run(MultipleChoiceJob(s))
  assert np.loadtxt(os.path.join(s.output_dir,
                                 "test_results.tsv")).shape == (5, 4)
  assert not os.path.exists(os.path.join(s.output_dir, "test_results.txt"))


def test_jsonl_defaults_win_and_a_missing_file_names_both(tmp_path):
  data_dir = str(tmp_path / "data")
  os.makedirs(data_dir)
  _write_swag(os.path.join(data_dir, "train.csv"), random.Random(5), 4)
  with open(os.path.join(data_dir, "train.jsonl"), "w") as f:
    f.write('{"context": "w1", "choices": ["w2", "w3"], "label": 0}\n')
  job = MultipleChoiceJob(_settings(str(tmp_path), data_dir, do_eval=False,
                                    do_predict=False, train_batch_size=1))
  job.prepare()  # One example: a batch of 1 trains a step.
  assert job.num_choices == 2  # train.jsonl, not SWAG's train.csv.
  with pytest.raises(InputError, match=r"^--dev_file=.*dev\.jsonl: file not "
                     r"found \(nor val\.csv\)$"):
    MultipleChoiceJob(_settings(str(tmp_path), data_dir,
                                train_batch_size=1)).prepare()
  # A file flag that was given is not replaced.
  with pytest.raises(InputError, match=r"^--train_file=.*other\.jsonl: file "
                     r"not found$"):
    MultipleChoiceJob(_settings(str(tmp_path), data_dir, do_eval=False,
                                do_predict=False,
                                train_file="other.jsonl")).prepare()
