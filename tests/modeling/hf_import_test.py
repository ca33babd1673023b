"""Hugging Face import: names, transposes, prefixes, heads, GELU, errors."""

import json
import os
import subprocess

import numpy as np
import pytest
from safetensors.numpy import save_file
import tensorflow as tf

import modeling
from modeling import hf_import
from tests import warm_python
from tests.modeling import helpers
from tokenization.errors import InputError

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _to_hf(names, prefix="bert."):
  """Our {original name: variable} -> HF tensors (torch Linear layout)."""
  out = {}
  for name, var in names.items():
    value = np.asarray(var)
    parts = name.split("/")
    if parts[0] == "bert":
      hf = ".".join(parts[1:])
      hf = hf.replace("encoder.layer_", "encoder.layer.")
      if hf.endswith(".kernel"):
        hf, value = hf[:-len("kernel")] + "weight", value.T
      hf = hf.replace("LayerNorm.gamma", "LayerNorm.weight").replace(
          "LayerNorm.beta", "LayerNorm.bias")
      if hf.startswith("embeddings.") and "LayerNorm" not in hf:
        hf += ".weight"
      out[prefix + hf] = value
    elif name.startswith("cls/predictions/transform/"):
      hf = name.replace("/", ".").replace(".kernel", ".weight")
      hf = hf.replace("LayerNorm.gamma", "LayerNorm.weight").replace(
          "LayerNorm.beta", "LayerNorm.bias")
      out[hf] = value.T if name.endswith("kernel") else value
    elif name == "cls/predictions/output_bias":
      out["cls.predictions.bias"] = value
    elif name.startswith("cls/seq_relationship/"):
      out["cls.seq_relationship." + ("weight" if "weights" in name
                                     else "bias")] = value
  return out


def _hf_dir(tmp_path, config, tensors, hidden_act="gelu", **extra):
  d = tmp_path / "hf"
  d.mkdir()
  hf_config = {k: v for k, v in config.to_dict().items()}
  hf_config.update(model_type="bert", hidden_act=hidden_act,
                   layer_norm_eps=1e-12, **extra)
  (d / "config.json").write_text(json.dumps(hf_config))
  save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()},
            str(d / "model.safetensors"))
  (d / "vocab.txt").write_text("[PAD]\n[UNK]\n")
  return str(d)


@pytest.fixture(scope="module")
def source():
  config = helpers.tiny_config(num_hidden_layers=2)
  model = helpers.FullModel(config)
  return config, model


@pytest.mark.parametrize("prefix", ["bert.", ""])
def test_converted_weights_reproduce_the_model(tmp_path, source, prefix):
  config, model = source
  tensors = _to_hf(modeling.original_variable_names(model), prefix)
  tensors["cls.predictions.decoder.weight"] = np.asarray(
      model.bert.get_embedding_table())  # Tied copy: ignored.
  tensors[prefix + "embeddings.position_ids"] = np.arange(24)[None]
  out_dir = str(tmp_path / "out")
  new_config, names = hf_import.convert_hf_checkpoint(
      _hf_dir(tmp_path, config, tensors), out_dir)
  assert new_config.hidden_act == "gelu"
  assert sorted(os.listdir(out_dir)) == [
      "bert_config.json", "bert_model.ckpt.data-00000-of-00001",
      "bert_model.ckpt.index", "vocab.txt"]
  assert "cls/predictions/output_bias" in names
  loaded_config = modeling.BertConfig.from_json_file(
      os.path.join(out_dir, "bert_config.json"))
  fresh = helpers.FullModel(loaded_config)
  report = modeling.init_from_checkpoint(
      fresh, os.path.join(out_dir, "bert_model.ckpt"))
  assert sorted(report.not_loaded) == [
      "cls/squad/output_bias", "cls/squad/output_weights", "output_bias",
      "output_weights"]
  features = helpers.model_features(helpers.random_features(config))
  got, want = fresh(features), model(features)
  for key in ("sequence_output", "pooled_output", "mlm_log_probs",
              "nsp_log_probs"):
    np.testing.assert_array_equal(got[key], want[key])


def test_exact_gelu_option(tmp_path, source):
  config, model = source
  tensors = _to_hf(modeling.original_variable_names(model.bert))
  out_dir = str(tmp_path / "exact")
  cfg, _ = hf_import.convert_hf_checkpoint(
      _hf_dir(tmp_path, config, tensors), out_dir, exact_gelu=True)
  assert cfg.hidden_act == "gelu_exact"
  assert modeling.BertConfig.from_json_file(
      os.path.join(out_dir, "bert_config.json")) == cfg
  exact = modeling.BertModel(cfg)
  modeling.init_from_checkpoint(exact, os.path.join(out_dir,
                                                    "bert_model.ckpt"))
  features = helpers.model_features(helpers.random_features(config))
  diff = np.abs(exact(features)["sequence_output"] -
                model.bert(features)["sequence_output"]).max()
  assert 0 < diff < 1e-2


def test_script_reports_bad_input_in_one_line(tmp_path):
  proc = subprocess.run(
      [warm_python.command(), os.path.join(REPO_ROOT, "convert_hf_checkpoint.py"),
       "--hf_dir=" + str(tmp_path / "nothing"),
       "--output_dir=" + str(tmp_path / "out")],
      cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False)
  assert proc.returncode == 1
  assert "error: --hf_dir=" in proc.stderr and "not a directory" in proc.stderr
  assert "Traceback" not in proc.stderr


def test_activation_mapping():
  base = {"model_type": "bert", "vocab_size": 10, "hidden_size": 4,
          "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 8}
  for hf, ours in (("gelu", "gelu"), ("gelu_new", "gelu"), ("relu", "relu")):
    assert hf_import.hf_config_to_bert_config(
        dict(base, hidden_act=hf)).hidden_act == ours
  assert hf_import.hf_config_to_bert_config(
      dict(base, hidden_act="gelu"), exact_gelu=True).hidden_act == (
          "gelu_exact")
  with pytest.raises(InputError, match="hidden_act 'silu'"):
    hf_import.hf_config_to_bert_config(dict(base, hidden_act="silu"))
  with pytest.raises(InputError, match="model_type is 'roberta'"):
    hf_import.hf_config_to_bert_config(dict(base, model_type="roberta"))
  with pytest.raises(InputError, match="missing intermediate_size"):
    hf_import.hf_config_to_bert_config(
        {k: v for k, v in base.items() if k != "intermediate_size"})
  with pytest.raises(InputError, match="position_embedding_type"):
    hf_import.hf_config_to_bert_config(
        dict(base, position_embedding_type="relative_key"))


def test_bad_directories(tmp_path, source):
  config, model = source
  with pytest.raises(InputError, match="not a directory"):
    hf_import.convert_hf_checkpoint(str(tmp_path / "x"), str(tmp_path / "o"))
  empty = tmp_path / "empty"
  empty.mkdir()
  with pytest.raises(InputError, match="no config.json"):
    hf_import.convert_hf_checkpoint(str(empty), str(tmp_path / "o"))
  (empty / "config.json").write_text(json.dumps(dict(
      config.to_dict(), model_type="bert")))
  (empty / "pytorch_model.bin").write_bytes(b"")
  with pytest.raises(InputError, match="convert it to safetensors"):
    hf_import.convert_hf_checkpoint(str(empty), str(tmp_path / "o"))
  tensors = _to_hf(modeling.original_variable_names(model.bert))
  del tensors["bert.encoder.layer.1.output.dense.weight"]
  with pytest.raises(InputError, match="no tensor for bert/encoder/layer_1/"
                     "output/dense/kernel"):
    hf_import.convert_hf_checkpoint(_hf_dir(tmp_path, config, tensors),
                                    str(tmp_path / "o"))
  assert not os.path.exists(tmp_path / "o" / "bert_model.ckpt.index")


def test_wrong_shape_is_reported(tmp_path, source):
  config, model = source
  tensors = _to_hf(modeling.original_variable_names(model.bert))
  tensors["bert.pooler.dense.weight"] = np.zeros((36, 35), np.float32)
  with pytest.raises(InputError, match=r"bert/pooler/dense/kernel has shape "
                     r"\[35, 36\], config.json implies \[36, 36\]"):
    hf_import.convert_hf_checkpoint(_hf_dir(tmp_path, config, tensors),
                                    str(tmp_path / "o"))
