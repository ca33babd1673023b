"""One loss per task: the script's steps and Keras fit call one function.

For every fine-tuning task the loss the runner trains on
(`runner.ModelTask.compute_loss` -> the model's `loss_and_outputs`, what
run_*.py computes) and the loss of the Keras model compiled without
one (`TaskModel.compute_loss`, what `model.fit` trains on) come from the
same function of the task's model module: on one batch both are equal, and
a spy on that function sees both calls (so a copy of the loss in either
place fails here).
"""

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier import model as classifier_model
from bert_tf2.embedding import losses as embedding_losses
from bert_tf2.multiple_choice import model as mc_model
from bert_tf2.ner import model as ner_model
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.embedding.model import BiEncoder
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.runner.task import ModelTask

CONFIG = modeling.BertConfig(
    vocab_size=40, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
    intermediate_size=24, max_position_embeddings=16, type_vocab_size=2)
BATCH, SEQ = 4, 8


def _encoder_features(rng, shape):
  mask = np.ones(shape, np.int32)
  mask[..., SEQ - 2:] = 0
  return {"input_ids": rng.randint(5, 40, shape).astype(np.int32),
          "input_mask": mask, "segment_ids": np.zeros(shape, np.int32)}


def _classifier_batch(rng, labels):
  f = _encoder_features(rng, [BATCH, SEQ])
  f.update(label_ids=labels, is_real_example=np.array([1, 1, 1, 0]))
  return f


def _ner_batch(rng):
  f = _encoder_features(rng, [BATCH, SEQ])
  mask = np.zeros([BATCH, SEQ], np.int32)
  mask[:, 1:SEQ - 3] = 1
  mask[2] = 0  # A window with no labelled position.
  f.update(label_ids=rng.randint(0, 3, [BATCH, SEQ]).astype(np.int32),
           label_mask=mask)
  return f


CASES = {
    "classifier": (
        lambda: BertClassifier(CONFIG, 3), classifier_model,
        "classifier_loss",
        lambda rng: _classifier_batch(rng, np.array([0, 2, 1, 1]))),
    "regression": (
        lambda: BertClassifier(CONFIG, 1),
        classifier_model, "classifier_loss",
        lambda rng: _classifier_batch(
            rng, np.array([0.5, 3.0, 1.25, 4.0], np.float32))),
    "multi_label": (
        lambda: BertClassifier(CONFIG, 3, multi_label=True),
        classifier_model, "multi_label_loss",
        lambda rng: _classifier_batch(
            rng, np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]],
                          np.float32))),
    "ner": (lambda: BertTokenClassifier(CONFIG, 3), ner_model, "ner_loss",
            _ner_batch),
    "ner_crf": (lambda: BertTokenClassifier(CONFIG, 3, crf=True), ner_model,
                "ner_loss", _ner_batch),
    "multiple_choice": (
        lambda: BertMultipleChoice(CONFIG), mc_model, "multiple_choice_loss",
        lambda rng: dict(_encoder_features(rng, [BATCH, 3, SEQ]),
                         label_ids=np.array([0, 2, 1, 2]),
                         is_real_example=np.array([1, 1, 1, 0]))),
}


def _spy(monkeypatch, module, name):
  calls = []
  function = getattr(module, name)

  def spy(*args, **kwargs):
    calls.append(name)
    return function(*args, **kwargs)
  monkeypatch.setattr(module, name, spy)
  return calls


@pytest.mark.parametrize("name", sorted(CASES))
def test_runner_task_and_keras_fit_share_the_loss(name, monkeypatch):
  make_model, module, function, make_batch = CASES[name]
  tf.keras.utils.set_random_seed(1)
  task = ModelTask(make_model)
  model = task.build_model()
  features = {k: tf.constant(v) for k, v in
              make_batch(np.random.RandomState(0)).items()}
  calls = _spy(monkeypatch, module, function)

  runner_loss, outputs = task.compute_loss(model, features, training=False)
  assert calls == [function]
  logits = model(features, training=False)
  keras_loss = model.compute_loss(x=features, y_pred=logits, training=False)
  assert calls == [function, function]

  assert float(runner_loss) > 0.0
  assert float(keras_loss) == float(runner_loss)
  # The metrics' per-example values are those the loss averages.
  if "per_example_loss" in outputs:
    assert np.isclose(float(runner_loss),
                      float(np.mean(outputs["per_example_loss"])))


def test_bi_encoder_task_trains_on_the_ranking_loss(monkeypatch):
  """run_embedding.py: the Task's loss is `multiple_negatives_ranking_loss`
  of the shared encoder's vectors, in-batch accuracy `in_batch_correct`."""
  tf.keras.utils.set_random_seed(1)
  task = ModelTask(lambda: BiEncoder(CONFIG, scale=5.0))
  model = task.build_model()
  rng = np.random.RandomState(0)
  features = {}
  for side in ("anchor", "positive", "negative"):
    for k, v in _encoder_features(rng, [BATCH, SEQ]).items():
      features["%s_%s" % (side, k)] = tf.constant(v)
  calls = _spy(monkeypatch, embedding_losses,
               "multiple_negatives_ranking_loss")
  loss, outputs = task.compute_loss(model, features, training=False)
  assert calls == ["multiple_negatives_ranking_loss"]

  vectors = [model({k: features["%s_%s" % (side, k)]
                    for k in ("input_ids", "input_mask", "segment_ids")})
             for side in ("anchor", "positive", "negative")]
  expected = embedding_losses.multiple_negatives_ranking_loss(
      *vectors, scale=5.0)
  assert float(loss) == float(expected)
  np.testing.assert_array_equal(
      outputs["correct"], embedding_losses.in_batch_correct(*vectors))
