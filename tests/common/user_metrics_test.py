"""A task model compiled with a user loss reports the user's metrics.

Regression test: the classifier's own "accuracy" metric (updated only by the
original loss, compiled without one) used to hide a compiled
metrics=["accuracy"], so fit and evaluate logged 0.0 for a right model.
"""

import numpy as np
import pytest
import keras

import modeling
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.ner.model import BertTokenClassifier

CONFIG = modeling.BertConfig(
    vocab_size=40, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
    intermediate_size=48, max_position_embeddings=16,
    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def _features(n=16, seq=8):
  rng = np.random.RandomState(0)
  ids = rng.randint(5, 40, [n, seq]).astype(np.int32)
  return {"input_ids": ids, "input_mask": np.ones_like(ids),
          "segment_ids": np.zeros_like(ids)}


@pytest.mark.parametrize("make", [
    lambda: BertClassifier(CONFIG, 3, classifier_dropout_prob=0.0),
    lambda: BertTokenClassifier(CONFIG, 4, classifier_dropout_prob=0.0)], ids=["classifier", "ner"])
def test_compiled_accuracy_is_the_true_accuracy(make):
  keras.utils.set_random_seed(1)
  model = make()
  x = _features()
  predicted = np.argmax(model.predict(x, verbose=0), axis=-1)
  y = predicted.copy()
  y[:4] = (y[:4] + 1) % 3  # 12 of 16 examples (rows of tokens) right.
  want = np.mean(predicted == y)
  assert 0 < want < 1
  model.compile(
      optimizer=keras.optimizers.SGD(learning_rate=0.0),
      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
      metrics=["accuracy"])
  evaluated = model.evaluate(x, y, batch_size=8, return_dict=True, verbose=0)
  np.testing.assert_allclose(evaluated["accuracy"], want, rtol=1e-6)
  history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
  np.testing.assert_allclose(history.history["accuracy"][0], want, rtol=1e-6)


def test_without_a_loss_the_task_accuracy_is_still_reported():
  model = BertClassifier(CONFIG, 3, classifier_dropout_prob=0.0)
  x = _features()
  labels = np.argmax(model.predict(x, verbose=0), axis=-1).astype(np.int32)
  model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0))
  logs = model.evaluate(dict(x, label_ids=labels), return_dict=True,
                        verbose=0)
  assert logs["accuracy"] == 1.0
