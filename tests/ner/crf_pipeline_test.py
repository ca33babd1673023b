"""run_ner's pipeline with --crf: trains, decodes valid BIO, exports,
serves the same tags from raw text, and the model is a Keras model."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.ner import model as model_lib
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner import job as ner_job
from bert_tf2.ner import schemes
from bert_tf2.ner import predictor
from tests.ner import pipeline_test as base

_predictions = base._predictions  # pylint: disable=protected-access
_results = base._results  # pylint: disable=protected-access


@pytest.fixture(scope="module")
def trained_crf(tmp_path_factory):
  return base._train(tmp_path_factory, crf=True)  # pylint: disable=protected-access


def test_crf_learns_and_decodes_valid_bio(trained_crf):
  out = trained_crf.output_dir
  result = _results(os.path.join(out, "eval_results.txt"))
  assert result["eval_f1"] > 0.6, result
  for name in ("eval_predictions.txt", "test_predictions.txt"):
    for sentence in _predictions(os.path.join(out, name)):
      assert schemes.count_orphan_starts([r[2] for r in sentence]) == 0
  reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(out))
  transitions = reader.get_tensor("crf/transitions")
  assert transitions.shape == (4, 4)
  # --crf_learning_rate_multiplier=100 acts: Adam without bias correction
  # moves a variable at most (1 - beta_1) / sqrt(1 - beta_2) < 3.2 times
  # the rate per step, so at the plain rate no score could get this far.
  steps = reader.get_tensor("global_step")
  assert np.abs(transitions).max() > 3.2 * trained_crf.learning_rate * steps
  assert reader.get_tensor("crf/start_transitions").shape == (4,)


def test_crf_saved_model_decodes_in_graph_like_pipeline(trained_crf):
  rows = _predictions(os.path.join(trained_crf.output_dir,
                                   "test_predictions.txt"))
  texts = [" ".join(r[0] for r in s) for s in rows]
  for text, sentence, found in zip(
      texts, rows, base.served_entities(trained_crf.export_dir, texts)):
    expected = predictor.entities(text, [r[0] for r in sentence],
                               [r[2] for r in sentence])
    assert found == expected, text
  # serving_ids decodes over the first pieces ("##s" is not one) and gives
  # the raw-text signature's tags there.
  loaded = tf.saved_model.load(trained_crf.export_dir)
  served = loaded.signatures["serving_default"](
      text=tf.constant(["n0 n1 w22s p0"]))
  words = base.VOCAB.index
  ids = tf.constant([[words("[CLS]"), words("n0"), words("n1"), words("w22"),
                      words("##s"), words("p0"), words("[SEP]"), 0, 0, 0, 0,
                      0]], tf.int32)
  by_ids = loaded.signatures["serving_ids"](
      input_ids=ids, input_mask=tf.cast(ids > 0, tf.int32),
      segment_ids=0 * ids)["label_ids"].numpy()[0]
  with open(os.path.join(trained_crf.output_dir, "label_list.txt")) as f:
    labels = f.read().split()
  assert [labels[i] for i in by_ids[[1, 2, 3, 5]]] == [
      t.decode() for t in served["tags"].numpy()[0]]
  assert by_ids[4] == 0 and (by_ids[6:] == 0).all() and by_ids[0] == 0


def test_crf_model_fits_and_round_trips_keras_file(tmp_path):
  cfg = base.CONFIG
  allowed = [a.tolist() for a in __import__(
      "bert_tf2.ner.crf", fromlist=["x"]).allowed_transitions(
          ["O", "B-PER", "I-PER"], "BIO")]
  model = model_lib.BertTokenClassifier(cfg, 3, crf=True, allowed=allowed)
  ids = tf.constant([[2, 6, 7, 12, 3, 0]] * 4, tf.int32)
  features = {"input_ids": ids, "input_mask": tf.cast(ids > 0, tf.int32),
              "segment_ids": 0 * ids,
              "label_ids": tf.constant([[0, 1, 2, 0, 0, 0]] * 4),
              "label_mask": tf.constant([[0, 1, 1, 1, 0, 0]] * 4)}
  model.compile(keras.optimizers.Adam(1e-2))
  history = model.fit(tf.data.Dataset.from_tensors(features).repeat(8),
                      epochs=1, verbose=0)
  assert "token_accuracy" in history.history
  path = str(tmp_path / "m.keras")
  model.save(path)
  clone = keras.models.load_model(path)
  assert clone.use_crf and clone.crf.allowed == allowed
  np.testing.assert_array_equal(clone.crf.transitions.numpy(),
                                model.crf.transitions.numpy())
  assert np.abs(model.crf.transitions.numpy()).max() > 0
  np.testing.assert_array_equal(
      clone.decode(features, clone(features)).numpy(),
      model.decode(features, model(features)).numpy())


def test_crf_flags_refused_without_crf(trained_crf, tmp_path):
  bad = ner_flags.default_options(**dict(vars(trained_crf), crf=False,
                                        crf_learning_rate_multiplier=10.0,
                                        output_dir=str(tmp_path)))
  with pytest.raises(InputError, match="--crf_learning_rate_multiplier=10.0: needs --crf"):
    ner_job.run(bad)
  bad = ner_flags.default_options(**dict(vars(trained_crf),
                                        crf_learning_rate_multiplier=0.0,
                                        output_dir=str(tmp_path)))
  with pytest.raises(InputError, match="must be > 0"):
    ner_job.run(bad)
