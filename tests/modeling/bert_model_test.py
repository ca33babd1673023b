"""BertModel: shapes, masks, both usage styles, dropout, tf.function, XLA."""

import collections

import numpy as np
import pytest
import tensorflow as tf

import modeling
from tests.modeling import helpers
from tokenization.errors import InputError


@pytest.fixture(scope="module")
def config():
  return helpers.tiny_config()


@pytest.fixture(scope="module")
def model(config):
  return modeling.BertModel(config)


@pytest.fixture(scope="module")
def features(config):
  f = helpers.random_features(config)
  return {k: tf.constant(f[k])
          for k in ("input_ids", "input_mask", "token_type_ids")}


def test_output_shapes(model, config, features):
  out = model(features, return_attention_probs=True)
  b, s, h = 3, 13, config.hidden_size
  assert out["sequence_output"].shape == (b, s, h)
  assert out["pooled_output"].shape == (b, h)
  assert out["embedding_output"].shape == (b, s, h)
  assert len(out["encoder_outputs"]) == config.num_hidden_layers
  assert all(x.shape == (b, s, h) for x in out["encoder_outputs"])
  np.testing.assert_array_equal(out["encoder_outputs"][-1],
                                out["sequence_output"])
  probs = out["attention_probs"]
  assert len(probs) == config.num_hidden_layers
  assert probs[0].shape == (b, config.num_attention_heads, s, s)
  np.testing.assert_allclose(np.sum(probs[1], axis=-1), 1.0, atol=1e-5)
  assert "attention_probs" not in model(features)


def test_masked_keys_get_no_attention(model, features):
  probs = model(features, return_attention_probs=True)["attention_probs"][0]
  mask = features["input_mask"].numpy()
  padded = probs.numpy()[mask[:, None, None, :].repeat(13, 2).repeat(
      3, 1) == 0]
  assert padded.size and padded.max() < 1e-4


def test_padding_content_does_not_change_real_tokens(model, features):
  out = model(features)
  changed = dict(features)
  ids = features["input_ids"].numpy().copy()
  mask = features["input_mask"].numpy()
  ids[mask == 0] = 7  # Different ids under the padding.
  changed["input_ids"] = tf.constant(ids)
  out2 = model(changed)
  real = mask.astype(bool)
  np.testing.assert_allclose(out["sequence_output"].numpy()[real],
                             out2["sequence_output"].numpy()[real], atol=1e-6)
  np.testing.assert_allclose(out["pooled_output"], out2["pooled_output"],
                             atol=1e-6)
  # ...but the mask itself matters.
  out3 = model(dict(features, input_mask=tf.ones_like(features["input_mask"])))
  assert np.abs(out3["pooled_output"] - out["pooled_output"]).max() > 1e-4


def test_default_mask_and_types(model, features):
  ids = features["input_ids"]
  full = model({"input_ids": ids, "input_mask": tf.ones_like(ids),
                "token_type_ids": tf.zeros_like(ids)})
  for inputs in ({"input_ids": ids}, ids, (ids,)):
    np.testing.assert_array_equal(model(inputs)["pooled_output"],
                                  full["pooled_output"])
  # "segment_ids" is accepted for token_type_ids.
  with_seg = model({"input_ids": ids, "input_mask": features["input_mask"],
                    "segment_ids": features["token_type_ids"]})
  np.testing.assert_array_equal(with_seg["pooled_output"],
                                model(features)["pooled_output"])


def test_original_style_matches_keras_style(config, features):
  m = modeling.BertModel(config=config, is_training=False,
                         input_ids=features["input_ids"],
                         input_mask=features["input_mask"],
                         token_type_ids=features["token_type_ids"],
                         use_one_hot_embeddings=False)
  out = m(features)
  np.testing.assert_array_equal(m.get_pooled_output(), out["pooled_output"])
  np.testing.assert_array_equal(m.get_sequence_output(),
                                out["sequence_output"])
  np.testing.assert_array_equal(m.get_embedding_output(),
                                out["embedding_output"])
  layers = m.get_all_encoder_layers()
  assert len(layers) == config.num_hidden_layers
  table = m.get_embedding_table()
  assert tuple(table.shape) == (config.vocab_size, config.hidden_size)
  np.testing.assert_array_equal(
      m.get_word_embedding_output()[0, 0], tf.gather(table, features[
          "input_ids"][0, 0]))
  with pytest.raises(ValueError, match="original-style constructor"):
    modeling.BertModel(config).get_pooled_output()


def test_accessors_follow_current_weights(config, features, tmp_path):
  source = modeling.BertModel(config)
  prefix = modeling.save_checkpoint(
      modeling.original_variable_names(source), str(tmp_path), 1)
  m = modeling.BertModel(config=config, is_training=False,
                         input_ids=features["input_ids"])
  before = m.get_pooled_output().numpy()
  report = modeling.init_from_checkpoint(m, prefix)
  assert len(report.loaded) == len(m.trainable_variables)
  after = m.get_pooled_output().numpy()
  expected = source({"input_ids": features["input_ids"]})["pooled_output"]
  assert np.abs(before - after).max() > 1e-3
  np.testing.assert_array_equal(after, expected)
  # Any other assignment is noticed too.
  m.pooler.bias.assign(m.pooler.bias + 1.0)
  assert np.abs(m.get_pooled_output().numpy() - after).max() > 1e-3
  # Unchanged weights, no dropout: every call gives the same outputs.
  np.testing.assert_array_equal(m.get_sequence_output(),
                                m.get_sequence_output())


def test_training_turns_dropout_on(model, features):
  a = model(features, training=False)["pooled_output"]
  b = model(features, training=False)["pooled_output"]
  np.testing.assert_array_equal(a, b)
  c = model(features, training=True)["pooled_output"]
  d = model(features, training=True)["pooled_output"]
  assert np.abs(c - a).max() > 1e-4 and np.abs(c - d).max() > 1e-4
  no_dropout = modeling.BertModel(helpers.tiny_config(
      hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))
  np.testing.assert_array_equal(no_dropout(features, training=True)[
      "pooled_output"], no_dropout(features)["pooled_output"])


@pytest.mark.parametrize("jit", [False, True])
def test_tf_function_and_xla_match_eager(features, jit):
  # One layer keeps the XLA compile short; layers are all the same code.
  model = modeling.BertModel(helpers.tiny_config(num_hidden_layers=1))
  fn = tf.function(lambda f: model(f, training=False), jit_compile=jit)
  got = fn(features)
  want = model(features)
  for key in ("sequence_output", "pooled_output", "embedding_output"):
    np.testing.assert_allclose(got[key], want[key], atol=2e-6)
  train = tf.function(lambda f: model(f, training=True)["pooled_output"],
                      jit_compile=jit)
  assert np.abs(train(features) - train(features)).max() > 1e-4


def test_dynamic_shapes_in_tf_function(model, features):
  spec = tf.TensorSpec([None, None], tf.int32)
  fn = tf.function(lambda i, m, t: model(
      {"input_ids": i, "input_mask": m, "token_type_ids": t})[
          "pooled_output"], input_signature=[spec, spec, spec])
  np.testing.assert_allclose(
      fn(features["input_ids"], features["input_mask"],
         features["token_type_ids"]),
      model(features)["pooled_output"], atol=2e-6)
  long = tf.ones([1, 30], tf.int32)
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="max_position_embeddings"):
    fn(long, long, long * 0)


def test_sequence_longer_than_max_positions(model):
  with pytest.raises(InputError, match="longer than max_position_embeddings"):
    model({"input_ids": tf.ones([1, 25], tf.int32)})
  with pytest.raises(InputError, match="--max_seq_length=30"):
    modeling.check_sequence_length(model.config, 30)
  modeling.check_sequence_length(model.config, 24)


def test_vocab_size_check(config):
  modeling.check_vocab_size(config, config.vocab_size)
  modeling.check_vocab_size(config, 50)
  with pytest.raises(InputError, match="--vocab_file has 98 entries but "
                     "bert_config.json has vocab_size=97"):
    modeling.check_vocab_size(config, 98)


def test_one_hot_embeddings_equal_gather(config, features, tmp_path):
  gather = modeling.BertModel(config)
  one_hot = modeling.BertModel(config, use_one_hot_embeddings=True)
  one_hot.set_weights(gather.get_weights())
  np.testing.assert_allclose(one_hot(features)["sequence_output"],
                             gather(features)["sequence_output"], atol=1e-6)


def test_fused_qkv_equals_separate(config, features):
  separate = modeling.BertModel(config)
  fused = modeling.BertModel(config, fused_qkv=True)
  fused.set_weights(separate.get_weights())
  assert set(modeling.original_variable_names(fused)) == set(
      modeling.original_variable_names(separate))
  np.testing.assert_allclose(fused(features)["sequence_output"],
                             separate(features)["sequence_output"], atol=2e-6)


def test_einsum_attention_layout_equals_the_default_matmul(config, features):
  # attention_layout="einsum" (the earlier default) changes only the ops:
  # outputs and attention probabilities equal the default "matmul"'s.
  model = modeling.BertModel(config)
  einsum_model = modeling.BertModel(config, attention_layout="einsum")
  einsum_model.set_weights(model.get_weights())
  default = model(features, return_attention_probs=True)
  einsum = einsum_model(features, return_attention_probs=True)
  traced = tf.function(einsum_model)(features)
  for out in (einsum, traced):
    for name in ("sequence_output", "pooled_output"):
      np.testing.assert_allclose(out[name], default[name], atol=2e-6)
  for got, want in zip(einsum["attention_probs"], default["attention_probs"]):
    np.testing.assert_allclose(got, want, atol=2e-6)
  def op_types(m):
    graph = tf.function(lambda f: m(f)).get_concrete_function(features).graph
    return collections.Counter(op.type for op in graph.get_operations())
  plain, layout = op_types(model), op_types(einsum_model)
  # Two batched matmuls per layer become two einsums (the embeddings'
  # einsums are in both).
  layers = config.num_hidden_layers
  assert layout["Einsum"] - plain["Einsum"] == 2 * layers
  assert plain["BatchMatMulV2"] - layout["BatchMatMulV2"] == 2 * layers


def test_attention_layout_round_trips_through_get_config(config):
  model = modeling.BertModel(config, attention_layout="einsum")
  clone = modeling.BertModel.from_config(model.get_config())
  assert clone.attention_layout == "einsum"
  assert {layer.attention_self.attention_layout
          for layer in clone.encoder_layers} == {"einsum"}
  assert modeling.BertModel(config).get_config()["attention_layout"] == (
      "matmul")
  with pytest.raises(ValueError, match="attention_layout='fast'"):
    modeling.BertModel(config, attention_layout="fast")


def test_initializer_is_truncated_normal(config):
  m = modeling.BertModel(helpers.tiny_config(vocab_size=500,
                                             initializer_range=0.05))
  table = m.get_embedding_table().numpy()
  assert np.abs(table).max() <= 2 * 0.05 + 1e-6
  assert 0.03 < table.std() < 0.05
  assert np.all(m.pooler.bias.numpy() == 0)
  assert np.all(m.embeddings.layer_norm.gamma.numpy() == 1)


def test_get_config_round_trip(model, features):
  clone = modeling.BertModel.from_config(model.get_config())
  clone.set_weights(model.get_weights())
  np.testing.assert_array_equal(clone(features)["pooled_output"],
                                model(features)["pooled_output"])


def test_mixed_bfloat16(config, features):
  import keras  # pylint: disable=g-import-not-at-top
  reference = modeling.BertModel(config)
  keras.mixed_precision.set_global_policy("mixed_bfloat16")
  try:
    mixed = modeling.BertModel(config)
    head = modeling.MaskedLMHead(config)
  finally:
    keras.mixed_precision.set_global_policy("float32")
  mixed.set_weights(reference.get_weights())
  assert all(v.dtype == "float32" for v in mixed.weights)
  out = mixed(features, return_attention_probs=True)
  assert out["sequence_output"].dtype == tf.bfloat16
  assert out["attention_probs"][0].dtype == tf.float32
  want = reference(features)["sequence_output"]
  assert np.abs(tf.cast(out["sequence_output"], tf.float32) - want).max() < 0.15
  logits = head(out["sequence_output"], tf.constant([[1, 2]] * 3),
                mixed.get_embedding_table())
  assert logits.dtype == tf.float32
  loss, _, _ = modeling.masked_lm_loss(logits, tf.zeros([3, 2], tf.int32),
                                       tf.ones([3, 2]))
  assert loss.dtype == tf.float32 and np.isfinite(loss.numpy())


@pytest.mark.parametrize("layout", ["matmul", "einsum"])
def test_pooled_only_equals_the_pooled_output(config, features, layout):
  # pooled_only computes the last layer at [CLS] alone: the pooled output
  # is the full model's, its last attention has one query row, and [CLS]
  # still attends to (depends on) every other real token.
  model = modeling.BertModel(config, attention_layout=layout)
  full = model(features, return_attention_probs=True)
  cls = model(features, pooled_only=True, return_attention_probs=True)
  assert set(cls) == {"pooled_output", "attention_probs"}
  np.testing.assert_allclose(cls["pooled_output"], full["pooled_output"],
                             atol=2e-6)
  assert float(tf.reduce_max(tf.abs(full["pooled_output"]))) > 0.05
  batch, seq = features["input_ids"].shape
  heads = config.num_attention_heads
  assert cls["attention_probs"][-1].shape == (batch, heads, 1, seq)
  np.testing.assert_allclose(cls["attention_probs"][-1],
                             full["attention_probs"][-1][:, :, :1], atol=2e-6)
  for got, want in zip(cls["attention_probs"][:-1],
                       full["attention_probs"][:-1]):
    np.testing.assert_allclose(got, want, atol=2e-6)
  changed = dict(features)
  ids = features["input_ids"].numpy().copy()
  ids[:, 1] = (ids[:, 1] + 1) % config.vocab_size
  changed["input_ids"] = tf.constant(ids)
  moved = model(changed, pooled_only=True)["pooled_output"]
  assert float(tf.reduce_max(tf.abs(moved - cls["pooled_output"]))) > 1e-4
  traced = tf.function(lambda f: model(f, pooled_only=True))(features)
  np.testing.assert_allclose(traced["pooled_output"], full["pooled_output"],
                             atol=2e-6)
