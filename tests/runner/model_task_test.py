"""`runner.ModelTask`: the runner's task of every task model.

The scripts evaluate and predict through the models' own `eval_metrics`,
`update_eval_metrics` and `predict_outputs`. These tests pin what
eval_results.txt depends on: the metric names each script writes (the
original's names), eval_loss as the mean of the per-example losses over
all batches (not the mean of the batch means), padding examples
(is_real_example 0, TPU batches) counting for nothing, the rows' keys kept
in the predictions, and the metric names known before training without
building a model once the runner has one.
"""

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier import model as classifier_model
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.embedding.model import BiEncoder
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.runner.task import ModelTask
from bert_tf2.squad.model import SquadModel

CFG = modeling.BertConfig(vocab_size=40, hidden_size=16, num_hidden_layers=1,
                          num_attention_heads=2, intermediate_size=24,
                          max_position_embeddings=16)
SEQ = 8

# What each script's eval_results.txt holds beside "loss" and "global_step"
# (run_classifier.py's and run_pretraining.py's are the original's names).
EVAL_NAMES = {
    "classifier": (lambda: BertClassifier(CFG, 3),
                   ["eval_accuracy", "eval_loss"]),
    "regression": (lambda: BertClassifier(CFG, 1),
                   ["eval_loss", "eval_pearson"]),
    "multi_label": (lambda: BertClassifier(CFG, 3, multi_label=True),
                    ["eval_exact_match", "eval_loss", "eval_micro_f1",
                     "eval_micro_precision", "eval_micro_recall"]),
    "ner": (lambda: BertTokenClassifier(CFG, 3, crf=True),
            ["eval_loss", "eval_token_accuracy"]),
    "multiple_choice": (lambda: BertMultipleChoice(CFG),
                        ["eval_accuracy", "eval_loss"]),
    "embedding": (lambda: BiEncoder(CFG),
                  ["eval_in_batch_accuracy", "eval_loss"]),
    "squad": (lambda: SquadModel(CFG), ["end_accuracy", "start_accuracy"]),
    "pretraining": (lambda: PretrainingModel(CFG),
                    ["masked_lm_accuracy", "masked_lm_loss",
                     "next_sentence_accuracy", "next_sentence_loss"]),
    "pretraining_no_nsp": (lambda: PretrainingModel(CFG, use_nsp=False),
                           ["masked_lm_accuracy", "masked_lm_loss"]),
}


@pytest.mark.parametrize("kind", sorted(EVAL_NAMES))
def test_each_model_gives_its_scripts_metric_names(kind):
  model_fn, names = EVAL_NAMES[kind]
  assert sorted(ModelTask(model_fn).create_metrics()) == names


def _batch(rng, n, labels):
  mask = np.ones([n, SEQ], np.int32)
  mask[:, SEQ - 3:] = 0
  return {"input_ids": tf.constant(rng.randint(5, 40, [n, SEQ]), tf.int32),
          "input_mask": tf.constant(mask),
          "segment_ids": tf.zeros([n, SEQ], tf.int32),
          "label_ids": tf.constant(labels),
          "is_real_example": tf.ones([n], tf.int32)}


def _evaluate(task, model, batches):
  metrics = task.create_metrics()
  for features in batches:
    _, outputs = task.compute_loss(model, features, training=False)
    task.update_metrics(metrics, features, outputs)
  return {k: float(m.result()) for k, m in metrics.items()}


def test_eval_loss_is_the_mean_over_examples_not_batches():
  tf.keras.utils.set_random_seed(0)
  task = ModelTask(lambda: BertClassifier(CFG, 3))
  model = task.build_model()
  model.classifier.output_bias.assign([3.0, 0.0, -3.0])  # Unequal losses.
  rng = np.random.RandomState(0)
  big, small = _batch(rng, 3, [0, 0, 1]), _batch(rng, 1, [2])
  result = _evaluate(task, model, [big, small])
  per_example = np.concatenate([
      classifier_model.classifier_loss(model(f), f["label_ids"])[1].numpy()
      for f in (big, small)])
  np.testing.assert_allclose(result["eval_loss"], per_example.mean(),
                             rtol=1e-6)
  batch_means = np.mean([per_example[:3].mean(), per_example[3:].mean()])
  assert abs(per_example.mean() - batch_means) > 0.5  # The test can tell.


def _choices(features, num_choices):
  """[n * num_choices, SEQ] sequence features -> [n, num_choices, SEQ]."""
  return {k: tf.reshape(v, [-1, num_choices, SEQ]) for k, v in
          features.items() if k in ("input_ids", "input_mask",
                                    "segment_ids")}


# (model, real examples' labels, padding examples' labels, choices).
PADDING_CASES = {
    "classifier": (lambda: BertClassifier(CFG, 3), [0, 2, 1], [1, 1], 0),
    "regression": (lambda: BertClassifier(CFG, 1), [0.5, 2.0, 1.0],
                   [9.0, -3.0], 0),
    "multiple_choice": (lambda: BertMultipleChoice(CFG), [0, 1, 1], [0, 0],
                        2),
}


@pytest.mark.parametrize("kind", sorted(PADDING_CASES))
def test_padding_examples_count_for_nothing(kind):
  """A TPU evaluation batch padded with is_real_example 0 rows (other
  labels) gives the metrics of its real examples."""
  model_fn, labels, pad_labels, choices = PADDING_CASES[kind]
  tf.keras.utils.set_random_seed(0)
  task = ModelTask(model_fn)
  model = task.build_model()
  n, pad = len(labels), len(pad_labels)
  rows = _batch(np.random.RandomState(1), n * max(choices, 1), [0])
  if choices:
    rows = _choices(rows, choices)
  real = dict(rows, label_ids=tf.constant(labels),
              is_real_example=tf.ones([n], tf.int32))
  padded = {k: tf.concat([v, v[:pad]], axis=0) for k, v in rows.items()}
  padded.update(label_ids=tf.constant(labels + pad_labels),
                is_real_example=tf.constant([1] * n + [0] * pad))
  expected = _evaluate(task, model, [real])
  got = _evaluate(task, model, [padded])
  assert sorted(got) == sorted(expected)
  for name in expected:
    np.testing.assert_allclose(got[name], expected[name], rtol=1e-5,
                               err_msg=name)
  unweighted = _evaluate(task, model, [dict(
      padded, is_real_example=tf.ones([n + pad], tf.int32))])
  assert any(abs(unweighted[k] - expected[k]) > 1e-4 for k in expected)


def test_predictions_keep_the_rows_keys():
  task = ModelTask(lambda: SquadModel(CFG))
  model = task.build_model()
  features = _batch(np.random.RandomState(2), 2, [0, 0])
  plain = task.predict_outputs(model, features)
  assert sorted(plain) == ["end_logits", "is_real_example", "start_logits"]
  features.update(unique_ids=tf.constant([7, 9]),
                  example_index=tf.constant([0, 0]))
  out = task.predict_outputs(model, features)
  assert out["unique_ids"].numpy().tolist() == [7, 9]
  assert out["example_index"].numpy().tolist() == [0, 0]


def test_metric_names_need_no_second_model_once_one_is_built():
  built = []

  def model_fn():
    built.append(1)
    return BertClassifier(CFG, 2)
  task = ModelTask(model_fn)
  # Asked before training (the scripts check --early_stopping_metric
  # first): one model is built to ask, and dropped.
  assert sorted(task.create_metrics()) == ["eval_accuracy", "eval_loss"]
  assert len(built) == 1
  model = task.build_model()
  assert len(built) == 2
  assert sorted(task.create_metrics()) == ["eval_accuracy", "eval_loss"]
  assert task.training_scalars() == ()
  assert len(built) == 2  # The runner's model answers.
  del model
