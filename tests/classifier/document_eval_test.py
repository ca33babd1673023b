"""--long_text=sliding_window evaluation: eval_results.txt of documents
comes from the model's own metrics (`BertClassifier.logits_eval_results`)
on the averaged window logits, equal to the textbook formulas in float64."""

import numpy as np
import pytest
from scipy import special
from scipy import stats

import modeling
from bert_tf2.classifier.model import BertClassifier

CONFIG = modeling.BertConfig(vocab_size=30, hidden_size=8,
                             num_hidden_layers=1, num_attention_heads=2,
                             intermediate_size=16)


@pytest.mark.parametrize("seed", [0, 1])
def test_classification_loss_and_accuracy(seed):
  rng = np.random.RandomState(seed)
  logits = rng.normal(0, 2, [37, 3])
  labels = rng.randint(0, 3, 37)
  got = BertClassifier(CONFIG, 3).logits_eval_results(logits,
                                                      labels.astype(np.int32))
  assert sorted(got) == ["eval_accuracy", "eval_loss"]
  log_probs = special.log_softmax(logits, axis=-1)
  loss = -np.mean(log_probs[np.arange(37), labels])
  accuracy = np.mean(np.argmax(logits, -1) == labels)
  assert got["eval_loss"] == pytest.approx(loss, abs=1e-6)
  assert got["eval_accuracy"] == pytest.approx(accuracy, abs=1e-6)
  assert 0.1 < accuracy < 0.9  # Neither all right nor all wrong.


def test_regression_loss_and_pearson():
  rng = np.random.RandomState(2)
  labels = rng.uniform(0, 5, 29)
  predictions = labels + rng.normal(0, 2, 29)
  got = BertClassifier(CONFIG, 1).logits_eval_results(
      predictions[:, None], labels.astype(np.float32))
  assert sorted(got) == ["eval_loss", "eval_pearson"]
  assert got["eval_loss"] == pytest.approx(
      np.mean((predictions - labels) ** 2), rel=1e-6)
  assert got["eval_pearson"] == pytest.approx(
      stats.pearsonr(predictions, labels)[0], abs=1e-6)
