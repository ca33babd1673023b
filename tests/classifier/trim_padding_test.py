"""--trim_padding: train/eval/predict equal the fixed-padding run.

The same tiny model (dropout off, same seed, same batches in the same
order) is fine-tuned, evaluated and run on the test set twice, once with
every batch at max_seq_length and once trimmed to the batch's longest
sentence; losses, metrics, probabilities and the trained weights agree to
float32 round-off, and the trimmed run really ran shorter batches.
"""

import json
import os
import random

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.classifier import features as F
from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from tests.classifier import tiny_task
from bert_tf2.common.preprocessor import BertPreprocessor

WORDS = tiny_task.WORDS
SPECIALS = tiny_task.SPECIALS
CONFIG = tiny_task.CONFIG
write_tsv = tiny_task.write_tsv


def _rows(rng, n, with_label=True):
  rows = []
  for i in range(n):
    # Mostly short sentences, a few long ones: batches of 8 trim to
    # different buckets (16, 32, 48).
    length = {5: 40, 20: 20}.get(i % 32, rng.randint(3, 12))
    words = [rng.choice(WORDS) for _ in range(length)]
    if i % 2 == 0:
      words.insert(rng.randint(0, len(words)), "alpha")
    text = " ".join(words)
    rows.append(("yes" if i % 2 == 0 else "no", text) if with_label
                else (text,))
  return rows


@pytest.fixture(scope="module")
def data(tmp_path_factory):
  root = str(tmp_path_factory.mktemp("trim"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(3)
  write_tsv(os.path.join(data_dir, "train.tsv"), ["label", "text"],
            _rows(rng, 96))
  write_tsv(os.path.join(data_dir, "dev.tsv"), ["label", "text"],
            _rows(rng, 30))
  write_tsv(os.path.join(data_dir, "test.tsv"), ["text"],
            _rows(rng, 21, with_label=False))
  vocab_file = os.path.join(root, "vocab.txt")
  with open(vocab_file, "w") as f:
    f.write("\n".join(SPECIALS + WORDS + ["alpha"]) + "\n")
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(CONFIG, f)
  return root, data_dir, vocab_file, config_file


def _run(data, name, **overrides):
  root, data_dir, vocab_file, config_file = data
  keras.utils.set_random_seed(0)  # Same initial weights and shuffling.
  options = default_options(**dict(dict(
      task_name="tsv", data_dir=data_dir, vocab_file=vocab_file,
      bert_config_file=config_file, output_dir=os.path.join(root, name),
      text_a_column="text", label_column="label", label_list="no,yes",
      do_train=True, do_eval=True, do_predict=True, max_seq_length=64,
      train_batch_size=16, eval_batch_size=8, predict_batch_size=8,
      learning_rate=5e-3, num_train_epochs=2.0, save_checkpoints_steps=100,
      export_dir=os.path.join(root, name + "_export")),
      **overrides))
  pipeline.run(options)
  out = options.output_dir
  with open(os.path.join(out, "eval_results.txt")) as f:
    results = {l.split(" = ")[0]: float(l.split(" = ")[1])
               for l in f.read().splitlines()}
  probabilities = np.loadtxt(os.path.join(out, "test_results.tsv"))
  reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(out))
  weights = {n: reader.get_tensor(n) for n in
             reader.get_variable_to_shape_map()
             if n.startswith(("bert/", "output_"))}
  return options, results, probabilities, weights


@pytest.fixture(scope="module")
def runs(data):
  return (_run(data, "fixed", trim_padding=False),
          _run(data, "trimmed", trim_padding=True))


def test_input_fn_trims_to_buckets(runs):
  options = runs[0][0]
  path = os.path.join(options.output_dir, "train.tf_record")
  trimmed = F.file_based_input_fn_builder(path, 64, False, False,
                                          trim_padding=True)
  fixed = F.file_based_input_fn_builder(path, 64, False, False)
  lengths = []
  for a, b in zip(trimmed({"batch_size": 8}), fixed({"batch_size": 8})):
    length = a["input_ids"].shape[1]
    lengths.append(length)
    assert length in (16, 32, 48, 64)
    assert int(tf.reduce_sum(b["input_mask"][:, length:])) == 0
    assert int(tf.reduce_sum(b["input_mask"][:, length - 16:])) > 0
    for key in ("input_ids", "input_mask", "segment_ids"):
      np.testing.assert_array_equal(a[key], b[key][:, :length])
    np.testing.assert_array_equal(a["label_ids"], b["label_ids"])
  assert len(lengths) == 12
  assert min(lengths) == 16 and max(lengths) == 48, lengths


def test_trimmed_run_equals_fixed_padding(runs):
  (_, fixed_results, fixed_probs, fixed_weights), (
      _, results, probs, weights) = runs
  assert results["global_step"] == fixed_results["global_step"] == 12
  for key in ("eval_accuracy", "eval_loss", "loss"):
    np.testing.assert_allclose(results[key], fixed_results[key], rtol=1e-4,
                               atol=1e-6, err_msg=key)
  assert probs.shape == fixed_probs.shape == (21, 2)
  np.testing.assert_allclose(probs, fixed_probs, atol=2e-6)
  assert sorted(weights) == sorted(fixed_weights)
  for name, value in weights.items():
    np.testing.assert_allclose(value, fixed_weights[name], atol=2e-5,
                               rtol=1e-4, err_msg=name)


def test_saved_model_trims_and_equals_fixed_padding(runs, data):
  import tensorflow_text  # pylint: disable=unused-import  (registers ops)
  (fixed_options, _, fixed_probs, _), (options, _, probs, _) = runs
  with open(os.path.join(data[1], "test.tsv")) as f:
    texts = [l.rstrip("\n") for l in f.readlines()[1:]]
  trimmed = tf.saved_model.load(options.export_dir)
  fixed = tf.saved_model.load(fixed_options.export_dir)
  got = trimmed.signatures["serving_default"](text_a=tf.constant(texts))
  want = fixed.signatures["serving_default"](text_a=tf.constant(texts))
  np.testing.assert_allclose(got["probabilities"], want["probabilities"],
                             atol=2e-6)
  np.testing.assert_allclose(got["probabilities"], probs, atol=2e-6)
  np.testing.assert_allclose(want["probabilities"], fixed_probs, atol=2e-6)


def test_server_runs_the_model_at_the_longest_sequence(tmp_path):
  from bert_tf2.classifier import serving
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\na\n")
  seen = []

  class Model(object):
    """Logits of zeros, recording the shape of each call's inputs."""

    def __call__(self, features, training):
      del training
      seen.append(features["input_ids"].shape.as_list())
      return tf.zeros([tf.shape(features["input_ids"])[0], 2])

    def head_outputs(self, logits):
      return {"logits": logits}

  model = Model()

  mask = tf.constant([[1] * 5 + [0] * 11, [1] * 9 + [0] * 7])
  for trim in (True, False):
    server = serving.classifier_server(
        model, BertPreprocessor(str(vocab), max_seq_length=16), ["a", "b"],
        trim_padding=trim)
    server.ids_signature().python_function(mask, mask, 0 * mask)
  assert seen == [[2, 9], [2, 16]]


def test_group_by_length_batches_hold_one_bucket_each(runs):
  """--group_by_length: each training batch's sentences share a bucket,
  and a pass over the data sees every example once."""
  options = runs[0][0]
  path = os.path.join(options.output_dir, "train.tf_record")
  fixed = F.file_based_input_fn_builder(path, 64, False, False)
  want = sorted(tuple(r) for b in fixed({"batch_size": 8})
                for r in b["input_ids"].numpy().tolist())
  grouped = F.file_based_input_fn_builder(path, 64, True, True,
                                          trim_padding=True,
                                          buckets=[16, 32, 48, 64],
                                          group_by_length=True, seed=1)
  seen, lengths = [], []
  for batch in grouped({"batch_size": 8}).take(40):
    real = batch["input_mask"].numpy().sum(axis=1)
    length = batch["input_ids"].shape[1]
    lengths.append(length)
    assert batch["input_ids"].shape[0] == 8
    # Every sentence of the batch needs this bucket: none fits a smaller.
    assert real.max() <= length and real.min() > length - 16, (real, length)
    seen.extend(tuple(r) + (0,) * (64 - length)
                for r in batch["input_ids"].numpy().tolist())
  assert set(lengths) == {16, 32, 48}  # Short, 20- and 40-word sentences.
  assert set(seen) == set(want)


def test_group_by_length_trains(data, runs):
  options, results, _, _ = _run(data, "grouped", group_by_length=True)
  assert results["global_step"] == 12
  assert np.isfinite(results["loss"]) and 0 <= results["eval_accuracy"] <= 1
  assert options.group_by_length


def test_group_by_length_needs_trim_padding(data):
  from bert_tf2.common import InputError  # pylint: disable=g-import-not-at-top
  with pytest.raises(InputError, match="--group_by_length needs "
                     "--trim_padding"):
    _run(data, "bad", group_by_length=True, trim_padding=False)
  assert not os.path.exists(os.path.join(data[0], "bad", "train.tf_record"))
