"""End to end: train a tiny BERT with run_classifier's pipeline, check files.

One training run (module fixture) on a small learnable task: a sentence is
"yes" iff it contains the word "alpha". Then: eval_results.txt, one
test_results.tsv row per example (with a batch remainder), original
checkpoint names, SavedModel reload, sliding-window prediction.
"""

import json
import os
import random

import keras
import numpy as np
import pytest
from scipy import special
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.classifier import features as F
from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from tests.classifier import tiny_task
from tokenization import windows as windows_lib

WORDS = tiny_task.WORDS
SPECIALS = tiny_task.SPECIALS
CONFIG = tiny_task.CONFIG
write_tsv = tiny_task.write_tsv
NUM_TEST = 13  # predict_batch_size 8 -> a remainder of 5.


def _sentence(rng, positive, length=None):
  words = rng.sample(WORDS, length or rng.randint(3, 8))
  if positive:
    words.insert(rng.randint(0, len(words)), "alpha")
  return " ".join(words)


def _labelled(rng, n):
  rows = []
  for i in range(n):
    positive = i % 2 == 0
    rows.append(("yes" if positive else "no", _sentence(rng, positive)))
  return rows


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  # Deterministic initialisation and shuffling: the result must not depend
  # on which test files ran before this one in the same worker process.
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("classifier"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(1)
  write_tsv(os.path.join(data_dir, "train.tsv"), ["label", "text"],
            _labelled(rng, 320))
  write_tsv(os.path.join(data_dir, "dev.tsv"), ["label", "text"],
            _labelled(rng, 60))
  test_texts = [_sentence(rng, i % 3 == 0) for i in range(NUM_TEST)]
  write_tsv(os.path.join(data_dir, "test.tsv"), ["text"],
            [(t,) for t in test_texts])
  vocab_file = os.path.join(root, "vocab.txt")
  with open(vocab_file, "w") as f:
    f.write("\n".join(SPECIALS + WORDS + ["alpha"]) + "\n")
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(CONFIG, f)
  options = default_options(
      task_name="tsv", data_dir=data_dir, vocab_file=vocab_file,
      bert_config_file=config_file, output_dir=os.path.join(root, "out"),
      text_a_column="text", label_column="label", label_list="no,yes",
      do_train=True, do_eval=True, do_predict=True, max_seq_length=16,
      train_batch_size=16, learning_rate=2e-3, num_train_epochs=4.0,
      save_checkpoints_steps=40, export_dir=os.path.join(root, "export"))
  pipeline.run(options)
  return options, test_texts


def test_eval_results_format_and_accuracy(trained):
  options, _ = trained
  with open(os.path.join(options.output_dir, "eval_results.txt")) as f:
    lines = f.read().splitlines()
  keys = [l.split(" = ")[0] for l in lines]
  assert keys == ["eval_accuracy", "eval_loss", "global_step", "loss"]
  results = {l.split(" = ")[0]: float(l.split(" = ")[1]) for l in lines}
  assert results["global_step"] == int(320 / 16 * 4.0)
  assert results["eval_accuracy"] >= 0.9, results
  assert results["eval_loss"] < 0.4, results


def test_output_files_and_checkpoint_names(trained):
  options, _ = trained
  out = options.output_dir
  for name in ("train.tf_record", "eval.tf_record", "predict.tf_record",
               "checkpoint", "model.ckpt-80.index"):
    assert os.path.exists(os.path.join(out, name)), name
  assert not [n for n in os.listdir(out) if ".tmp-" in n]
  names = dict(tf.train.list_variables(os.path.join(out, "model.ckpt-80")))
  assert names["output_weights"] == [2, 32]
  assert names["output_bias"] == [2]
  assert "output_weights/adam_m" in names and "global_step" in names
  assert "bert/encoder/layer_1/output/dense/kernel" in names


def _test_rows(options):
  with open(os.path.join(options.output_dir, "test_results.tsv")) as f:
    lines = f.read().split("\n")
  assert lines[-1] == ""
  return np.array([[float(x) for x in l.split("\t")] for l in lines[:-1]])


def test_predict_writes_one_row_per_example(trained):
  options, texts = trained
  rows = _test_rows(options)
  assert rows.shape == (NUM_TEST, 2)
  np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-5)
  predicted_yes = rows[:, 1] > 0.5
  assert predicted_yes.tolist() == ["alpha" in t.split() for t in texts]


def test_saved_model_signatures_match_predictions(trained):
  import tensorflow_text  # pylint: disable=unused-import  (registers ops)
  options, texts = trained
  rows = _test_rows(options)
  loaded = tf.saved_model.load(options.export_dir)
  raw = loaded.signatures["serving_default"](text_a=tf.constant(texts))
  np.testing.assert_allclose(raw["probabilities"].numpy(), rows, atol=1e-5)
  assert [x.decode() for x in raw["label"].numpy()] == [
      "yes" if r[1] > 0.5 else "no" for r in rows]
  fn = F.file_based_input_fn_builder(
      os.path.join(options.output_dir, "predict.tf_record"), 16, False, False)
  (batch,) = list(fn({"batch_size": 100}).as_numpy_iterator())
  ids = loaded.signatures["serving_ids"](
      input_ids=batch["input_ids"], input_mask=batch["input_mask"],
      segment_ids=batch["segment_ids"])
  np.testing.assert_allclose(ids["probabilities"].numpy(), rows, atol=1e-5)
  pair = loaded.signatures["serving_pair"](
      text_a=tf.constant(texts), text_b=tf.constant([""] * len(texts)))
  np.testing.assert_allclose(pair["probabilities"].numpy(), rows, atol=1e-5)


def test_sliding_window_averages_window_logits(trained, tmp_path):
  import tensorflow_text  # pylint: disable=unused-import
  options, _ = trained
  rng = random.Random(7)
  data_dir = str(tmp_path / "long")
  os.makedirs(data_dir)
  docs = [" ".join(_sentence(rng, k == 0, 8) for k in range(5)),
          _sentence(rng, True), " ".join(WORDS)]
  write_tsv(os.path.join(data_dir, "test.tsv"), ["text"],
            [(d,) for d in docs])
  # Another preprocessing is another run (the trained run's model.json
  # refuses it): a new output_dir starting from the trained weights.
  out = str(tmp_path / "out")
  long_options = default_options(**dict(
      vars(options), data_dir=data_dir, output_dir=out, do_train=False,
      do_eval=False, export_dir=None, long_text="sliding_window",
      doc_stride=5,
      init_checkpoint=tf.train.latest_checkpoint(options.output_dir)))
  pipeline.run(long_options)
  rows = _test_rows(long_options)
  assert rows.shape == (3, 2)
  fn = F.file_based_input_fn_builder(
      os.path.join(out, "predict.tf_record"), 16, False, False,
      with_example_index=True)
  (windows,) = list(fn({"batch_size": 100}).as_numpy_iterator())
  counts = np.bincount(windows["example_index"]).tolist()
  assert counts[1] == 1 and counts[0] > 3 and counts[2] > 3
  loaded = tf.saved_model.load(options.export_dir)
  logits = loaded.signatures["serving_ids"](
      input_ids=windows["input_ids"], input_mask=windows["input_mask"],
      segment_ids=windows["segment_ids"])["logits"].numpy()
  want = special.softmax(windows_lib.mean_of_windows(
      windows["example_index"], logits, 3), axis=-1)
  np.testing.assert_allclose(rows, want, atol=1e-5)


def test_bad_inputs_fail_clearly(trained, tmp_path):
  options, _ = trained
  base = dict(vars(options), output_dir=str(tmp_path / "o"), export_dir=None,
              do_train=False, do_predict=False)
  with pytest.raises(InputError, match="--max_seq_length=65 is longer than "
                     "max_position_embeddings=64"):
    pipeline.run(default_options(**dict(base, max_seq_length=65)))
  with pytest.raises(InputError, match="At least one of --do_train"):
    pipeline.run(default_options(**dict(base, do_eval=False)))
  small = str(tmp_path / "small.json")
  with open(small, "w") as f:
    json.dump(dict(CONFIG, vocab_size=10), f)
  with pytest.raises(InputError, match="has 46 tokens but .* vocab_size=10"):
    pipeline.run(default_options(**dict(base,
                                                 bert_config_file=small)))
  with pytest.raises(InputError, match="do_lower_case"):
    pipeline.run(default_options(**dict(
        base, do_lower_case=False,
        init_checkpoint="/x/uncased_L-12_H-768_A-12/bert_model.ckpt")))
  bad = str(tmp_path / "bad")
  os.makedirs(bad)
  write_tsv(os.path.join(bad, "dev.tsv"), ["label", "text"],
            [("yes", "w1 w2"), ("maybe", "w3")])
  with pytest.raises(InputError, match=r"dev\.tsv line 3: unknown label "
                     r"'maybe'"):
    pipeline.run(default_options(**dict(base, data_dir=bad)))


def test_python_predictor_from_the_output_dir_matches_test_results(trained):
  from bert_tf2.classifier.predictor import ClassifierPredictor  # pylint: disable=g-import-not-at-top
  options, texts = trained
  predictor = ClassifierPredictor.from_output_dir(options.output_dir)
  out = predictor.predict(texts)
  np.testing.assert_allclose([o["probabilities"] for o in out],
                             _test_rows(options), atol=1e-5)
  assert [o["label"] for o in out] == [
      "yes" if "alpha" in t.split() else "no" for t in texts]
