"""BertConfig: JSON round trip, unknown keys, validation errors."""

import json

import pytest
import tensorflow as tf

import modeling
from modeling import activations
from tokenization.errors import InputError


def test_defaults_are_the_originals():
  cfg = modeling.BertConfig(vocab_size=30522)
  assert cfg.to_dict() == {
      "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
      "num_attention_heads": 12, "intermediate_size": 3072,
      "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
      "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512,
      "type_vocab_size": 16, "initializer_range": 0.02}


def test_json_round_trip_keeps_unknown_keys(tmp_path):
  data = {"vocab_size": 99, "hidden_size": 36, "num_attention_heads": 3,
          "num_hidden_layers": 2, "intermediate_size": 50,
          "directionality": "bidi", "pooler_fc_size": 768}
  path = tmp_path / "bert_config.json"
  path.write_text(json.dumps(data))
  cfg = modeling.BertConfig.from_json_file(str(path))
  assert cfg.directionality == "bidi" and cfg.hidden_size == 36
  assert cfg.type_vocab_size == 16  # Default for a missing key.
  again = modeling.BertConfig.from_dict(json.loads(cfg.to_json_string()))
  assert again == cfg
  out = tmp_path / "out.json"
  cfg.to_json_file(str(out))
  assert json.loads(out.read_text()) == cfg.to_dict()
  assert cfg.to_json_string().endswith("}\n")


@pytest.mark.parametrize("field,value,message", [
    ("hidden_size", 37, "not a multiple of num_attention_heads"),
    ("num_hidden_layers", 0, "num_hidden_layers must be a positive integer"),
    ("vocab_size", None, "vocab_size must be a positive integer"),
    ("vocab_size", "100", "vocab_size must be a positive integer"),
    ("intermediate_size", -5, "intermediate_size"),
    ("hidden_dropout_prob", 1.5, "hidden_dropout_prob must be a number"),
    ("initializer_range", 0, "initializer_range must be a positive"),
    ("hidden_act", "swishy", "hidden_act: unsupported activation 'swishy'"),
])
def test_validation_errors_name_file_and_field(tmp_path, field, value,
                                               message):
  data = modeling.BertConfig(vocab_size=99, hidden_size=36,
                             num_attention_heads=3).to_dict()
  data[field] = value
  path = tmp_path / "bert_config.json"
  path.write_text(json.dumps(data))
  with pytest.raises(InputError) as e:
    modeling.BertConfig.from_json_file(str(path))
  assert message in str(e.value)
  assert str(path) in str(e.value)


def test_bad_files(tmp_path):
  with pytest.raises(InputError, match="not found"):
    modeling.BertConfig.from_json_file(str(tmp_path / "missing.json"))
  bad = tmp_path / "bad.json"
  bad.write_text("{'hidden_size': 1")
  with pytest.raises(InputError, match="not valid JSON"):
    modeling.BertConfig.from_json_file(str(bad))
  bad.write_text("[1, 2]")
  with pytest.raises(InputError, match="JSON object"):
    modeling.BertConfig.from_json_file(str(bad))
  # E.g. a checkpoint passed as --bert_config_file.
  bad.write_bytes(b'{"a": "\xff"}')
  with pytest.raises(InputError, match=r"bad\.json: not a text file "
                     r"\(not valid UTF-8 at byte 7\)"):
    modeling.BertConfig.from_json_file(str(bad))


def test_bert_model_rejects_invalid_config():
  with pytest.raises(InputError, match="not a multiple"):
    modeling.BertModel(modeling.BertConfig(vocab_size=10, hidden_size=10,
                                           num_attention_heads=3))


def test_activations():
  x = tf.constant([-3.0, -1.0, 0.0, 0.5, 2.0])
  tanh_gelu = modeling.get_activation("gelu")(x)
  exact = modeling.get_activation("GELU_EXACT")(x)
  erf = 0.5 * x * (1.0 + tf.math.erf(x / 2.0 ** 0.5))
  tf.debugging.assert_near(exact, erf, atol=1e-7)
  # The tanh approximation is close to, but not the same as, exact GELU.
  diff = float(tf.reduce_max(tf.abs(tanh_gelu - exact)))
  assert 1e-6 < diff < 1e-3
  assert modeling.gelu is activations.gelu
  assert modeling.get_activation("linear") is None
  assert modeling.get_activation("") is None
  assert float(modeling.get_activation("relu")(tf.constant(-2.0))) == 0.0
  assert modeling.get_activation(tf.tanh) is tf.tanh
  with pytest.raises(ValueError, match="known: gelu, gelu_exact"):
    modeling.get_activation("swish")


# Issue 38: a key missing or misspelled must not silently build another model.
SMALL = {"vocab_size": 99, "hidden_size": 36, "num_hidden_layers": 2,
         "num_attention_heads": 3, "intermediate_size": 50,
         "max_position_embeddings": 64, "type_vocab_size": 2}


def _write(tmp_path, data):
  path = tmp_path / "bert_config.json"
  path.write_text(json.dumps(data))
  return str(path)


def test_misspelled_key_is_refused_naming_the_nearest_field(tmp_path):
  data = dict(SMALL)
  data["hidden_sise"] = data.pop("hidden_size")
  path = _write(tmp_path, data)
  with pytest.raises(InputError) as e:
    modeling.BertConfig.from_json_file(path)
  assert str(e.value) == ("%s: unknown key 'hidden_sise' (did you mean "
                          "'hidden_size'?)" % path)
  with pytest.raises(InputError, match="unknown key 'hidden_sise'"):
    modeling.BertConfig.from_dict(data)
  with pytest.raises(InputError, match=r"unknown key 'colour' \(known keys: "
                     r"vocab_size, hidden_size"):
    modeling.BertConfig.from_dict(dict(SMALL, colour=1))


def test_released_configs_unused_keys_are_accepted(tmp_path):
  # The keys of Google's multilingual_L-12_H-768_A-12/bert_config.json.
  released = dict(SMALL, directionality="bidi", pooler_fc_size=768,
                  pooler_num_attention_heads=12, pooler_num_fc_layers=3,
                  pooler_size_per_head=128, pooler_type="first_token_transform",
                  hidden_act="gelu", hidden_dropout_prob=0.1,
                  attention_probs_dropout_prob=0.1, initializer_range=0.02)
  cfg = modeling.BertConfig.from_json_file(_write(tmp_path, released))
  assert cfg.to_dict() == released


def test_hugging_face_config_is_refused_with_the_converter_named(tmp_path):
  hf = dict(SMALL, model_type="bert", architectures=["BertModel"],
            layer_norm_eps=1e-12, pad_token_id=0)
  with pytest.raises(InputError, match="a Hugging Face config.json, not a "
                     "bert_config.json .*convert_hf_checkpoint.py"):
    modeling.BertConfig.from_json_file(_write(tmp_path, hf))


def test_missing_size_is_refused_when_required(tmp_path):
  data = dict(SMALL)
  del data["hidden_size"], data["num_hidden_layers"]
  path = _write(tmp_path, data)
  with pytest.raises(InputError) as e:
    modeling.BertConfig.from_json_file(path, require_sizes=True)
  assert str(e.value) == (
      "%s: no hidden_size, num_hidden_layers; training from scratch needs "
      "the model's sizes written out (the original would silently use "
      "hidden_size=768, num_hidden_layers=12)" % path)


def test_missing_size_otherwise_is_one_warning_naming_the_default(tmp_path,
                                                                  caplog):
  data = dict(SMALL)
  del data["num_hidden_layers"]
  path = _write(tmp_path, data)
  with caplog.at_level("WARNING"):
    cfg = modeling.BertConfig.from_json_file(path)
  assert cfg.num_hidden_layers == 12
  warnings = [r.getMessage() for r in caplog.records
              if r.levelname == "WARNING"]
  assert warnings == ["%s: no num_hidden_layers; using the original's "
                      "default num_hidden_layers=12" % path]
  # A complete file: no warning.
  caplog.clear()
  with caplog.at_level("WARNING"):
    modeling.BertConfig.from_json_file(_write(tmp_path, SMALL))
  assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_missing_heads_is_named_as_the_default_not_the_users(tmp_path):
  data = dict(SMALL, hidden_size=32)
  del data["num_attention_heads"]
  path = _write(tmp_path, data)
  with pytest.raises(InputError) as e:
    modeling.BertConfig.from_json_file(path)
  assert str(e.value) == (
      "%s: hidden_size (32) is not a multiple of num_attention_heads (12, "
      "the default: not in the file)" % path)


def test_missing_vocab_size_is_named(tmp_path):
  data = dict(SMALL)
  del data["vocab_size"]
  path = _write(tmp_path, data)
  with pytest.raises(InputError, match="no vocab_size"):
    modeling.BertConfig.from_json_file(path)
