"""Keras conventions: .keras round trips, export(), dtype policies, fit.

Every model and layer loads with plain keras.models.load_model (no
custom_objects) and gives equal outputs; export() writes a servable
SavedModel; a dtype policy reaches every sublayer; a task model fine-tunes
with compile/fit, the project's optimizer and EarlyStopping, from an
original-format checkpoint.
"""

import numpy as np
import pytest
import tensorflow as tf
import keras

import modeling
import optimization
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.squad.model import SquadModel

CONFIG = modeling.BertConfig(
    vocab_size=40, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
    intermediate_size=48, max_position_embeddings=16, type_vocab_size=2)


def _features(n=16, seq=8, seed=0):
  rng = np.random.RandomState(seed)
  mask = np.ones([n, seq], np.int32)
  mask[:, seq - 2:] = 0
  return {
      "input_ids": rng.randint(5, 40, [n, seq]).astype(np.int32),
      "input_mask": mask,
      "segment_ids": (np.arange(seq)[None] >= seq // 2).astype(np.int32)
                     * np.ones([n, 1], np.int32),
      "label_ids": rng.randint(0, 2, [n]).astype(np.int32),
      "start_positions": rng.randint(0, seq, [n]).astype(np.int32),
      "end_positions": rng.randint(0, seq, [n]).astype(np.int32),
      "masked_lm_positions": rng.randint(0, seq, [n, 3]).astype(np.int32),
      "masked_lm_ids": rng.randint(0, 40, [n, 3]).astype(np.int32),
      "masked_lm_weights": np.ones([n, 3], np.float32),
      "next_sentence_labels": rng.randint(0, 2, [n]).astype(np.int32)}


MODELS = {
    "bert": lambda **kw: modeling.BertModel(CONFIG, **kw),
    "classifier": lambda **kw: BertClassifier(CONFIG, 3, **kw),
    "ner": lambda **kw: BertTokenClassifier(CONFIG, 4, **kw),
    "squad": lambda **kw: SquadModel(CONFIG, **kw),
    "pretraining": lambda **kw: PretrainingModel(CONFIG, **kw),
}


def _inputs(name, features):
  if name == "bert":
    return {"input_ids": features["input_ids"],
            "input_mask": features["input_mask"],
            "token_type_ids": features["segment_ids"]}
  return features


@pytest.mark.parametrize("name", sorted(MODELS))
def test_keras_file_round_trip_without_custom_objects(name, tmp_path):
  model = MODELS[name]()
  x = _inputs(name, _features(4))
  want = model(x, training=False)
  path = str(tmp_path / "model.keras")
  model.save(path)
  loaded = keras.models.load_model(path)  # No custom_objects.
  assert type(loaded) is type(model)
  got = loaded(x, training=False)
  tf.nest.map_structure(
      lambda a, b: np.testing.assert_array_equal(np.asarray(a), np.asarray(b)),
      want, got)
  assert (modeling.original_variable_names(loaded).keys() ==
          modeling.original_variable_names(model).keys())


@pytest.mark.parametrize("name", sorted(MODELS))
def test_export_serves_the_same_outputs(name, tmp_path):
  model = MODELS[name]()
  x = _inputs(name, _features(3))
  model.export(str(tmp_path / "export"), verbose=False)
  serve = tf.saved_model.load(str(tmp_path / "export")).signatures[
      "serving_default"]
  names = [k for k in serve.structured_input_signature[1]]
  served = serve(**{k: tf.constant(x[k]) for k in names})
  want = model(x, training=False)
  if name == "bert":
    np.testing.assert_allclose(served["encoder_outputs_1"],
                               want["encoder_outputs"][1], atol=1e-5)
    np.testing.assert_allclose(served["pooled_output"],
                               want["pooled_output"], atol=1e-5)
  elif name in ("classifier", "ner"):
    np.testing.assert_allclose(served["logits"], want, atol=1e-5)
  elif name == "squad":
    np.testing.assert_allclose(served["end_logits"], want[1], atol=1e-5)
  else:
    np.testing.assert_allclose(served["masked_lm_logits"],
                               want["masked_lm_logits"], atol=1e-5)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_dtype_policy_reaches_every_sublayer(name):
  model = MODELS[name](dtype="mixed_bfloat16")
  policies = {l.dtype_policy.name for l in model._flatten_layers()}
  assert policies == {"mixed_bfloat16"}, policies
  assert {v.dtype for v in model.weights} == {"float32"}
  out = model(_inputs(name, _features(2)), training=False)
  bert_out = model.bert if name != "bert" else model
  seq = bert_out(_inputs("bert", _features(2)))["sequence_output"]
  assert seq.dtype == tf.bfloat16
  del out


def test_fit_from_original_checkpoint_with_early_stopping(tmp_path):
  # An original-format checkpoint of an encoder, as google's releases.
  encoder = modeling.BertModel(CONFIG)
  modeling.save_checkpoint(modeling.original_variable_names(encoder),
                           str(tmp_path / "pretrained"), 0)
  keras.utils.set_random_seed(1)
  model = BertClassifier(CONFIG, 2)
  report = modeling.init_from_checkpoint(model, str(tmp_path / "pretrained"))
  assert "bert/pooler/dense/kernel" not in report.not_loaded
  np.testing.assert_array_equal(model.bert.pooler.kernel.numpy(),
                                encoder.pooler.kernel.numpy())
  train = tf.data.Dataset.from_tensor_slices(_features(32, seed=1)).batch(8)
  # Validation labels unrelated to the inputs: val_loss stops improving.
  dev = tf.data.Dataset.from_tensor_slices(_features(16, seed=2)).batch(8)
  model.compile(optimizer=optimization.create_optimizer(5e-3, 100, 0))
  stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=1,
                                       restore_best_weights=True)
  best = tmp_path / "best.keras"
  history = model.fit(
      train, validation_data=dev, epochs=30, verbose=0, callbacks=[
          stop, keras.callbacks.ModelCheckpoint(str(best),
                                                save_best_only=True),
          keras.callbacks.CSVLogger(str(tmp_path / "log.csv"))])
  epochs = len(history.history["loss"])
  assert stop.stopped_epoch > 0 and epochs < 30
  # Trained: the encoder moved away from the checkpoint it started from.
  assert not np.allclose(model.bert.pooler.kernel.numpy(),
                         encoder.pooler.kernel.numpy())
  assert set(history.history) >= {"loss", "accuracy", "val_loss",
                                  "val_accuracy"}
  assert len((tmp_path / "log.csv").read_text().splitlines()) == epochs + 1
  reloaded = keras.models.load_model(str(best))
  results = reloaded.evaluate(dev, verbose=0, return_dict=True)
  assert results["loss"] == pytest.approx(min(history.history["val_loss"]),
                                          rel=1e-4)
  logits = model.predict(dev, verbose=0)
  assert logits.shape == (16, 2)


def test_fit_with_the_tensorboard_callback_writes_the_losses(tmp_path):
  keras.utils.set_random_seed(2)
  model = BertClassifier(CONFIG, 2)
  train = tf.data.Dataset.from_tensor_slices(_features(16, seed=3)).batch(8)
  dev = tf.data.Dataset.from_tensor_slices(_features(8, seed=4)).batch(8)
  model.compile(optimizer=optimization.create_optimizer(1e-3, 10, 0))
  history = model.fit(train, validation_data=dev, epochs=2, verbose=0,
                      callbacks=[keras.callbacks.TensorBoard(
                          str(tmp_path / "logs"))])
  scalars = {}
  for split in ("train", "validation"):
    files = tf.io.gfile.glob(str(tmp_path / "logs" / split / "events.*"))
    assert files, split
    for path in files:
      for event in tf.compat.v1.train.summary_iterator(path):
        for value in event.summary.value:
          number = tf.make_ndarray(value.tensor) if value.HasField(
              "tensor") else value.simple_value
          scalars.setdefault((split, value.tag), []).append(
              (event.step, float(number)))
  # One point per epoch, equal to what fit returned.
  for split, prefix in (("train", ""), ("validation", "val_")):
    for name in ("loss", "accuracy"):
      points = sorted(scalars[(split, "epoch_" + name)])
      assert [s for s, _ in points] == [0, 1]
      np.testing.assert_allclose([v for _, v in points],
                                 history.history[prefix + name], rtol=1e-5)


def test_token_classifier_trains_on_the_masked_token_loss():
  keras.utils.set_random_seed(2)
  features = _features(16)
  # Only the first five tokens count (label_mask); the rest carry labels
  # that would dominate the loss if they were counted.
  labels = features["input_ids"] % 2
  labels[:, 5:] = 3
  mask = (np.arange(8)[None] < 5) * np.ones([16, 1])
  features.update(label_ids=labels.astype(np.int32),
                  label_mask=mask.astype(np.int32))
  model = BertTokenClassifier(CONFIG, 4)
  model.compile(optimizer=optimization.create_optimizer(1e-2, 100, 0))
  data = tf.data.Dataset.from_tensor_slices(features).batch(16)
  history = model.fit(data, epochs=4, verbose=0)
  assert history.history["loss"][-1] < history.history["loss"][0]
  results = model.evaluate(data, verbose=0, return_dict=True)
  logits = model.predict(data, verbose=0).astype(np.float64)
  log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
  nll = -np.take_along_axis(log_probs, labels[..., None], -1)[..., 0]
  assert results["loss"] == pytest.approx((nll * mask).sum() / mask.sum(),
                                          rel=1e-4)
  correct = np.argmax(logits, -1) == labels
  assert results["token_accuracy"] == pytest.approx(correct[:, :5].mean())
