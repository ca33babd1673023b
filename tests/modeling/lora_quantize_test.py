"""Keras' own LoRA and int8 quantization reach BERT (modeling.Dense is a
keras.layers.Dense); LoRA weights save and load on their own."""

import numpy as np
import pytest
import keras

import modeling
from bert_tf2.classifier.model import BertClassifier

CONFIG = modeling.BertConfig(
    vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
    intermediate_size=48, max_position_embeddings=16)


def _features(n=8, seq=8):
  ids = np.random.RandomState(0).randint(1, 60, [n, seq]).astype(np.int32)
  return {"input_ids": ids, "input_mask": np.ones_like(ids),
          "segment_ids": np.zeros_like(ids)}


def test_dense_is_a_keras_dense_with_the_original_names():
  model = modeling.BertModel(CONFIG)
  assert isinstance(model.pooler, keras.layers.Dense)
  names = modeling.original_variable_names(model)
  assert names["bert/pooler/dense/kernel"] is model.pooler._kernel
  assert "bert/encoder/layer_1/attention/self/query/kernel" in names


def test_lora_trains_only_the_adapters_and_head_and_reloads(tmp_path):
  x = _features()
  base = BertClassifier(CONFIG, 2, classifier_dropout_prob=0.0)
  base_ckpt = modeling.save_checkpoint(
      modeling.original_variable_names(base), str(tmp_path / "base"), 0)
  want_names = set(modeling.original_variable_names(base))
  before = base(x).numpy()

  base.enable_lora(4)
  # B starts at zero: same outputs; only LoRA and head variables train.
  np.testing.assert_allclose(base(x).numpy(), before, atol=1e-6)
  trainable = {v.name for v in base.trainable_weights}
  assert trainable == {"lora_kernel_a", "lora_kernel_b", "output_weights",
                       "output_bias"}
  assert len(base.trainable_weights) == 2 * 2 * 2 + 2  # 2 layers x q,v x a,b
  base.compile(optimizer=keras.optimizers.Adam(1e-2),
               loss=keras.losses.SparseCategoricalCrossentropy(
                   from_logits=True))
  frozen = base.bert.pooler._kernel.numpy().copy()
  base.fit(x, np.arange(8) % 2, epochs=3, verbose=0)
  np.testing.assert_array_equal(base.bert.pooler._kernel.numpy(), frozen)
  tuned = base(x).numpy()
  assert np.abs(tuned - before).max() > 1e-4
  # LoRA names follow the kernels'; the base names are unchanged.
  names = set(modeling.original_variable_names(base))
  assert ("bert/encoder/layer_0/attention/self/value/lora_kernel_b"
          in names)
  assert {n for n in names if "lora_kernel" not in n} == want_names

  path = str(tmp_path / "adapters.npz")
  base.save_lora_weights(path)
  with np.load(path) as saved:
    assert len(saved.files) == 10
    assert all("lora_kernel" in n or n.startswith("output_")
               for n in saved.files)

  fresh = BertClassifier(CONFIG, 2, classifier_dropout_prob=0.0)
  modeling.init_from_checkpoint(fresh, base_ckpt)
  fresh.load_lora_weights(path)
  np.testing.assert_allclose(fresh(x).numpy(), tuned, atol=1e-5)

  other = modeling.BertModel(CONFIG)
  with pytest.raises(ValueError, match="does not match"):
    other.load_lora_weights(path)


@pytest.mark.parametrize("fused_qkv", [False, True])
def test_quantize_int8_is_close_to_float(fused_qkv):
  x = _features()
  model = modeling.BertModel(CONFIG, fused_qkv=fused_qkv)
  inputs = {"input_ids": x["input_ids"], "input_mask": x["input_mask"],
            "token_type_ids": x["segment_ids"]}
  want = model(inputs)["sequence_output"].numpy()
  model.quantize("int8")
  layer = model.encoder_layers[0].attention_self.query
  assert layer.quantization_mode == "int8"
  assert layer._kernel.dtype == "int8"
  got = model(inputs)["sequence_output"].numpy()
  assert not np.array_equal(got, want)
  np.testing.assert_allclose(got, want, atol=0.05)


def test_quantized_model_reloads_int8(tmp_path):
  x = _features(2)
  model = BertClassifier(CONFIG, 2)
  model.quantize("int8")
  want = model(x).numpy()
  assert model.get_config()["quantization_mode"] == "int8"
  path = str(tmp_path / "int8.keras")
  model.save(path)
  again = keras.saving.load_model(path)
  assert again.bert.encoder_layers[1].attention_self.query._kernel.dtype == (
      "int8")
  np.testing.assert_array_equal(again(x).numpy(), want)


def test_lora_then_int8_reloads_exactly(tmp_path):
  # Keras alone keeps float adapters beside the int8 kernel and, saving,
  # merges them into it and quantizes again: the reloaded logits moved (by
  # more than int8's own error). Merged before quantizing, the quantized
  # model is what the file holds.
  x = _features(4)
  model = BertClassifier(CONFIG, 2, classifier_dropout_prob=0.0)
  model.enable_lora(4)
  for layer in (model.bert.encoder_layers[0].attention_self.query,
                model.bert.encoder_layers[1].attention_self.value):
    b = layer.lora_kernel_b
    b.assign(np.random.RandomState(1).normal(0, 0.5, b.shape))
  float_lora = model(x).numpy()
  model.quantize("int8")
  want = model(x).numpy()
  path = str(tmp_path / "lora_int8.keras")
  model.save(path)
  again = keras.saving.load_model(path)
  np.testing.assert_array_equal(again(x).numpy(), want)
  query = model.bert.encoder_layers[0].attention_self.query
  assert query._kernel.dtype == "int8" and not query.lora_enabled
  assert not modeling.checkpoint.lora_variable_names(model)
  assert not np.array_equal(want, float_lora)
  np.testing.assert_allclose(want, float_lora, atol=0.05)


def test_quantize_and_merge_lora_untrack_without_collecting(monkeypatch):
  """Dense deletes the replaced variables as Keras does (untracked: the
  model holds no float kernel beside its int8 one, nor LoRA adapters), but
  without Keras' gc.collect() per deleted variable (one per Dense: seconds
  for a BERT's quantize)."""
  import gc  # pylint: disable=g-import-not-at-top
  model = BertClassifier(CONFIG, 2)
  x = _features()
  model(x)
  model.enable_lora(2)
  want = model(x).numpy()
  dense = [l for l in model._flatten_layers() if isinstance(l, modeling.Dense)]  # pylint: disable=protected-access
  assert len(dense) > 10
  collected = []
  monkeypatch.setattr(gc, "collect", lambda *a: collected.append(a) or 0)
  model.quantize("int8")
  assert collected == []
  for layer in dense:
    names = sorted(v.path.split("/")[-1] for v in layer.weights)
    assert names == ["bias", "kernel", "kernel_scale"], (layer.path, names)
    assert layer._kernel.dtype == "int8"  # pylint: disable=protected-access
  np.testing.assert_allclose(model(x).numpy(), want, atol=0.05)
