"""fit/evaluate report the true epoch loss and accuracy on datasets of
unknown cardinality with a static batch dimension (bert_tf2.common.fit_data:
Keras 3 counts one batch too many there)."""

import keras
import numpy as np
import tensorflow as tf

from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.model import classifier_loss
from bert_tf2.common import fit_data
from bert_tf2.models import text_model
from tests.common import tiny_dir

BATCH, BATCHES, SEQ = 4, 5, 8


def _features(seed=0):
  rng = np.random.RandomState(seed)
  n = BATCH * BATCHES
  ids = rng.randint(5, len(tiny_dir.VOCAB), size=(n, SEQ)).astype(np.int32)
  mask = np.ones_like(ids)
  mask[::2, SEQ // 2:] = 0
  return {"input_ids": ids * mask, "input_mask": mask,
          "segment_ids": np.zeros_like(ids),
          "label_ids": rng.randint(0, 2, size=n).astype(np.int32)}


def _unknown_static(features):
  """Batches of BATCH (static), cardinality unknown (as a TFRecord file)."""
  data = tf.data.Dataset.from_tensor_slices(features).batch(
      BATCH, drop_remainder=True).filter(lambda f: True)
  assert int(data.cardinality()) == int(tf.data.UNKNOWN_CARDINALITY)
  assert data.element_spec["input_ids"].shape[0] == BATCH
  return data


def _model():
  keras.utils.set_random_seed(0)
  config = tiny_dir.config()
  config.hidden_dropout_prob = config.attention_probs_dropout_prob = 0.0
  model = BertClassifier(config, num_labels=2, classifier_dropout_prob=0.0)
  model.compile(optimizer=keras.optimizers.SGD(0.0))  # Weights stay put.
  return model


def _truth(model, features):
  """(mean loss, accuracy) of the model on the features, batch by batch."""
  losses, right = [], 0
  for i in range(BATCHES):
    batch = {k: v[i * BATCH:(i + 1) * BATCH] for k, v in features.items()}
    logits = model(batch, training=False)
    losses.append(float(classifier_loss(logits, batch["label_ids"],
                                        False)[0]))
    right += int(np.sum(np.argmax(logits, -1) == batch["label_ids"]))
  return np.mean(losses), right / float(BATCH * BATCHES)


def test_dynamic_batch_erases_only_an_unknown_cardinality_batch_dim():
  known = tf.data.Dataset.range(8).batch(4, drop_remainder=True)
  assert fit_data.dynamic_batch(known) is known
  infinite = known.repeat()
  assert fit_data.dynamic_batch(infinite) is infinite
  unknown = known.filter(lambda x: True)
  erased = fit_data.dynamic_batch(unknown)
  assert erased.element_spec.shape.as_list() == [None]
  assert [b.tolist() for b in erased.as_numpy_iterator()] == [
      [0, 1, 2, 3], [4, 5, 6, 7]]
  pairs = tf.data.Dataset.from_tensor_slices(
      ({"a": np.zeros([4, 2])}, np.ones([4]))).batch(
          2, drop_remainder=True).filter(lambda x, y: True)
  spec = fit_data.dynamic_batch(pairs).element_spec
  assert spec[0]["a"].shape.as_list() == [None, 2]
  assert spec[1].shape.as_list() == [None]
  assert fit_data.dynamic_batch([1, 2]) == [1, 2]


def test_task_model_fit_and_evaluate_report_the_true_epoch_numbers():
  features, dev = _features(0), _features(1)
  model = _model()
  history = model.fit(_unknown_static(features), epochs=2, verbose=0,
                      validation_data=_unknown_static(dev)).history
  loss, accuracy = _truth(model, features)
  val_loss, val_accuracy = _truth(model, dev)
  np.testing.assert_allclose(history["loss"], [loss] * 2, rtol=1e-5)
  np.testing.assert_allclose(history["val_loss"], [val_loss] * 2, rtol=1e-5)
  np.testing.assert_allclose(history["val_accuracy"], [val_accuracy] * 2,
                             rtol=1e-6)
  np.testing.assert_allclose(history["accuracy"], [accuracy] * 2, rtol=1e-6)
  result = model.evaluate(_unknown_static(dev), verbose=0, return_dict=True)
  np.testing.assert_allclose(result["loss"], val_loss, rtol=1e-5)


def test_text_model_evaluate_on_a_static_batch_text_dataset(tmp_path):
  keras.utils.set_random_seed(0)
  directory = tiny_dir.write(str(tmp_path))
  model = text_model(BertClassifier, directory, num_labels=2,
                     max_seq_length=SEQ)
  model.compile(optimizer=keras.optimizers.SGD(0.0),
                loss=keras.losses.SparseCategoricalCrossentropy(
                    from_logits=True), metrics=["accuracy"])
  texts = ["bob met ann", "the cat sat on a mat", "angela merkel visited",
           "a dog ran", "ann met bob in paris", "the dogs sat"] * 2
  labels = np.array([0, 1, 0, 1, 1, 0] * 2, np.int32)
  data = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(
      4, drop_remainder=True).filter(lambda x, y: True)
  want = model.evaluate(texts, labels, batch_size=4, verbose=0,
                        return_dict=True)  # A list: known cardinality.
  got = model.evaluate(data, verbose=0, return_dict=True)
  np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-5)
  np.testing.assert_allclose(got["accuracy"], want["accuracy"], rtol=1e-6)


def test_fit_and_evaluate_keep_keras_positional_arguments():
  features = _features(0)
  model = _model()
  # fit(x, y, batch_size, epochs): Keras' own order.
  history = model.fit(features, None, BATCH, 2, 0).history
  assert len(history["loss"]) == 2
  loss, _ = _truth(model, features)
  result = model.evaluate(features, None, BATCH, 0, return_dict=True)
  np.testing.assert_allclose(result["loss"], loss, rtol=1e-5)
