"""`BiEncoder`: run_embedding.py's model (a SentenceEncoder + ranking loss)."""

import keras
import numpy as np
import tensorflow as tf

import modeling
from bert_tf2 import models  # pylint: disable=unused-import (registers)
from bert_tf2.embedding import losses
from bert_tf2.embedding.model import BiEncoder
from bert_tf2.embedding.model import side_features

CFG = modeling.BertConfig(vocab_size=40, hidden_size=16, num_hidden_layers=1,
                          num_attention_heads=2, intermediate_size=24,
                          max_position_embeddings=16)


def _pairs(rng, n=4, seq=8, sides=("anchor", "positive", "negative")):
  features = {}
  for side in sides:
    mask = (np.arange(seq) < rng.randint(3, seq + 1, [n, 1])).astype(np.int32)
    features.update({
        side + "_input_ids": tf.constant(rng.randint(5, 40, [n, seq]) * mask,
                                         tf.int32),
        side + "_input_mask": tf.constant(mask),
        side + "_segment_ids": tf.zeros([n, seq], tf.int32)})
  return features


def test_loss_is_the_ranking_loss_of_the_shared_encoder():
  tf.keras.utils.set_random_seed(0)
  model = BiEncoder(CFG, scale=5.0)
  features = _pairs(np.random.RandomState(0))
  loss, outputs = model.loss_and_outputs(features)
  vectors = [model(side_features(features, s)) for s in
             ("anchor", "positive", "negative")]
  np.testing.assert_allclose(
      float(loss), float(losses.multiple_negatives_ranking_loss(
          *vectors, scale=5.0)), rtol=1e-6)
  np.testing.assert_array_equal(outputs["correct"],
                                losses.in_batch_correct(*vectors))
  # Without hard negatives the candidates are the positives only.
  two = {k: v for k, v in features.items() if not k.startswith("negative")}
  loss2, _ = model.loss_and_outputs(two)
  np.testing.assert_allclose(
      float(loss2), float(losses.multiple_negatives_ranking_loss(
          vectors[0], vectors[1], scale=5.0)), rtol=1e-6)


def test_keras_file_keeps_the_scale_and_the_vectors(tmp_path):
  tf.keras.utils.set_random_seed(0)
  model = BiEncoder(CFG, pooling_mode="cls", normalize=False, scale=7.0)
  features = side_features(_pairs(np.random.RandomState(1)), "anchor")
  path = str(tmp_path / "bi_encoder.keras")
  model.save(path)
  loaded = keras.models.load_model(path)
  assert isinstance(loaded, BiEncoder)
  assert (loaded.scale, loaded.pooling_mode, loaded.normalize) == (
      7.0, "cls", False)
  np.testing.assert_allclose(loaded(features), model(features), atol=1e-6)
