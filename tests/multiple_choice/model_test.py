"""Multiple-choice features, reshaping, softmax over choices and the loss."""

import math

import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.multiple_choice import features as mc_features
from bert_tf2.multiple_choice import model as mc_model
from bert_tf2.multiple_choice.reader import MultipleChoiceExample


class _Tok(object):
  vocab = {"[CLS]": 1, "[SEP]": 2, "a": 3, "b": 4, "c": 5, "q": 6}

  def tokenize(self, text):
    return text.split()

  def convert_tokens_to_ids(self, tokens):
    return [self.vocab[t] for t in tokens]


def test_each_pair_is_a_sentence_pair_truncated_longest_first():
  ex = MultipleChoiceExample("1", "a a a a", "q", ["b", "c c c"], 0, "x")
  f = mc_features.convert_example(ex, 8, _Tok())
  # text_a "a a a a q" (5) + text_b (1) > 8 - 3: a loses its last piece.
  assert f.input_ids[0] == [1, 3, 3, 3, 3, 2, 4, 2]
  assert f.segment_ids[0] == [0, 0, 0, 0, 0, 0, 1, 1]
  # 5 + 3 > 5: a loses 2 (5 -> 3), then b loses 1 on the tie (3 -> 2).
  assert f.input_ids[1] == [1, 3, 3, 3, 2, 5, 5, 2]
  arrays = mc_features.features_to_arrays([f, f])
  assert arrays["input_ids"].shape == (2, 2, 8)
  assert arrays["label_ids"].tolist() == [0, 0]


def test_reshape_and_softmax_against_a_hand_computed_case():
  # 2 examples x 3 choices: pair scores in row-major order.
  scores = tf.constant([[1.], [2.], [3.], [0.], [0.], [math.log(2.)]])
  logits = mc_model.choice_logits(scores, 3)
  np.testing.assert_array_equal(
      logits.numpy(), np.float32([[1., 2., 3.], [0., 0., math.log(2.)]]))
  loss, per_example, probs = mc_model.multiple_choice_loss(
      logits, tf.constant([2, 0]))
  e = math.e
  z = 1 + e ** 1 + e ** 2   # e^1 + e^2 + e^3, divided by e
  expected_probs = [[1 / z, e / z, e * e / z], [0.25, 0.25, 0.5]]
  np.testing.assert_allclose(probs.numpy(), expected_probs, rtol=1e-6)
  expected = [-math.log(e * e / z), -math.log(0.25)]
  np.testing.assert_allclose(per_example.numpy(), expected, rtol=1e-6)
  np.testing.assert_allclose(float(loss), np.mean(expected), rtol=1e-6)


def _tiny_config():
  return modeling.BertConfig(vocab_size=20, hidden_size=16,
                             num_hidden_layers=1, num_attention_heads=2,
                             intermediate_size=32,
                             max_position_embeddings=16)


def test_model_scores_each_pair_independently_of_its_neighbours():
  tf.keras.utils.set_random_seed(1)
  model = mc_model.BertMultipleChoice(_tiny_config())
  ids = tf.constant(np.random.RandomState(0).randint(3, 20, [2, 3, 6]),
                    tf.int32)
  feats = {"input_ids": ids, "input_mask": tf.ones_like(ids),
           "segment_ids": tf.zeros_like(ids)}
  logits = model(feats)
  assert logits.shape == (2, 3)
  # The score of pair (1, 2) equals the model run on that pair alone.
  alone = {k: v[1:2, 2:3] for k, v in feats.items()}
  np.testing.assert_allclose(model(alone).numpy()[0, 0],
                             logits.numpy()[1, 2], rtol=1e-5, atol=1e-6)
  names = modeling.original_variable_names(model)
  assert "output_weights" in names and "output_bias" in names
  assert model.classifier.output_weights.shape == (1, 16)


def test_fit_without_a_loss_learns_a_toy_choice_task():
  tf.keras.utils.set_random_seed(2)
  model = mc_model.BertMultipleChoice(_tiny_config(),
                                      classifier_dropout_prob=0.0)
  rng = np.random.RandomState(0)
  # The right choice is the one holding token 7.
  ids = rng.randint(8, 20, [32, 4, 6]).astype(np.int32)
  labels = rng.randint(0, 4, [32]).astype(np.int32)
  ids[np.arange(32), labels, 2] = 7
  feats = {"input_ids": ids, "input_mask": np.ones_like(ids),
           "segment_ids": np.zeros_like(ids), "label_ids": labels}
  model.compile(optimizer=tf.keras.optimizers.Adam(1e-3))
  history = model.fit(feats, batch_size=8, epochs=15, verbose=0)
  assert history.history["loss"][-1] < history.history["loss"][0]
  assert history.history["accuracy"][-1] > 0.5
