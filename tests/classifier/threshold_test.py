"""The multi-label decision lives in the model alone (issue 45): every path
reads `BertClassifier.predicted` (threshold `BertClassifier.threshold`):
the head's outputs, the in-graph eval metrics, exact match, eval_results'
metrics and the SavedModel's outputs. Before, 0.5 was written on 8 lines
in 4 files, and the in-graph metrics counted a probability of exactly 0.5
as not predicted where eval_results.txt and the SavedModel predicted it."""

import numpy as np
import tensorflow as tf

from bert_tf2.classifier import multi_label
from bert_tf2.classifier import serving
from bert_tf2.classifier.model import BertClassifier
from tests.common import tiny_dir

# Logit 0 (probability exactly 0.5: predicted), logit 1 (0.73), -1 (0.27).
LOGITS = tf.constant([[0.0, 1.0, -1.0]])
LABELS = tf.constant([[1.0, 1.0, 0.0]])


class _Strict(BertClassifier):
  threshold = 0.8  # A model that decides otherwise: every path follows.


def _paths(model):
  """{path: its bool decisions [1, 3]} for LOGITS."""
  out = model.head_outputs(LOGITS)
  served = serving.classifier_outputs(model, ["a", "b", "c"])({}, LOGITS,
                                                              None)
  metrics = model.eval_metrics()
  model.update_eval_metrics(metrics, {"label_ids": LABELS},
                            dict(out, per_example_loss=tf.zeros([1])))
  recall = float(metrics["eval_micro_recall"].result())
  offline = multi_label.multi_label_metrics(LABELS.numpy(),
                                            out["predicted"].numpy(),
                                            ["a", "b", "c"])
  return {"head": out["predicted"].numpy().tolist(),
          "saved_model": served["predicted"].numpy().tolist(),
          "in_graph_recall": recall,
          "eval_results_recall": offline["eval_micro_recall"],
          "exact_match": float(metrics["eval_exact_match"].result()),
          "eval_results_exact_match": offline["eval_exact_match"]}


def test_every_path_decides_with_the_models_threshold():
  config = tiny_dir.config()
  got = _paths(BertClassifier(config, 3, multi_label=True))
  assert got["head"] == got["saved_model"] == [[True, True, False]]
  assert got["in_graph_recall"] == got["eval_results_recall"] == 1.0
  assert got["exact_match"] == got["eval_results_exact_match"] == 1.0
  strict = _paths(_Strict(config, 3, multi_label=True))
  assert strict["head"] == strict["saved_model"] == [[False, False, False]]
  assert strict["in_graph_recall"] == strict["eval_results_recall"] == 0.0
  assert strict["exact_match"] == strict["eval_results_exact_match"] == 0.0
  np.testing.assert_array_equal(
      _Strict.predicted(np.array([0.79, 0.8])), [False, True])


def test_a_models_own_threshold_decides_every_path_and_is_in_its_config():
  config = tiny_dir.config()
  model = BertClassifier(config, 3, multi_label=True, threshold=0.8)
  own = _paths(model)
  assert own == _paths(_Strict(config, 3, multi_label=True))
  assert own["head"] == [[False, False, False]]
  np.testing.assert_array_equal(model.predicted(np.array([0.79, 0.8])),
                                [False, True])
  # The class's default is unchanged; the config carries the model's.
  assert BertClassifier.threshold == 0.5
  again = BertClassifier.from_config(model.get_config())
  assert again.threshold == 0.8
  assert _paths(again) == own
