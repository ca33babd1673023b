"""One-call loading: Model.from_checkpoint(dir) of original and HF dirs."""

import json
import os
import shutil

import numpy as np
import pytest

import modeling
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import pretrained
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.squad.model import SquadModel
from tests.modeling.hf_import_test import _hf_dir, _to_hf
from tokenization.errors import InputError

CONFIG = modeling.BertConfig(
    vocab_size=12, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
    intermediate_size=24, max_position_embeddings=16)
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "film",
         "great", "bad", "##s", "is"]


def _inputs():
  ids = np.array([[2, 5, 7, 11, 8, 3, 0, 0]], np.int32)
  return {"input_ids": ids, "input_mask": (ids > 0).astype(np.int32),
          "token_type_ids": np.zeros_like(ids)}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
  d = tmp_path_factory.mktemp("original")
  encoder = modeling.BertModel(CONFIG)
  modeling.write_checkpoint(
      {n: v.numpy() for n, v in
       modeling.original_variable_names(encoder).items()},
      str(d / "bert_model.ckpt"))
  CONFIG.to_json_file(str(d / "bert_config.json"))
  (d / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
  return str(d), encoder


@pytest.mark.parametrize("cls,kwargs", [
    (BertClassifier, {"num_labels": 2}), (BertTokenClassifier,
                                          {"num_labels": 3}),
    (SquadModel, {})], ids=["classifier", "ner", "squad"])
def test_task_models_load_the_encoder(source, cls, kwargs, tmp_path):
  directory, encoder = source
  model = cls.from_checkpoint(directory, **kwargs)
  x = _inputs()
  want = encoder(x)["pooled_output"].numpy()
  got = model.bert(x)["pooled_output"].numpy()
  np.testing.assert_array_equal(got, want)
  assert model.pretrained.do_lower_case is True
  assert model.pretrained.vocab_file == os.path.join(directory, "vocab.txt")
  model.save(str(tmp_path / "m.keras"))  # The record does not get in the way.


def test_bert_model_and_hf_directory(source, tmp_path):
  directory, encoder = source
  x = _inputs()
  want = encoder(x)["sequence_output"].numpy()
  got = pretrained.load_bert_model(directory)(x)["sequence_output"].numpy()
  np.testing.assert_array_equal(got, want)
  hf = _hf_dir(tmp_path, CONFIG,
               _to_hf(modeling.original_variable_names(encoder)))
  shutil.copy(os.path.join(directory, "vocab.txt"), hf)
  (tmp_path / "hf" / "tokenizer_config.json").write_text(
      json.dumps({"do_lower_case": False}))
  model = BertClassifier.from_checkpoint(hf, num_labels=2)
  np.testing.assert_allclose(model.bert(x)["sequence_output"].numpy(), want,
                             atol=1e-6)
  assert model.pretrained.do_lower_case is False


def test_casing_is_detected_from_the_vocabulary(tmp_path):
  path = tmp_path / "vocab.txt"
  path.write_text("[PAD]\n[UNK]\nthe\n##s\n")
  assert pretrained.detect_lower_case(str(path))
  path.write_text("[PAD]\n[UNK]\nthe\nThe\n")
  assert not pretrained.detect_lower_case(str(path))


def _copy(directory, tmp_path):
  d = tmp_path / "copy"
  shutil.copytree(directory, d)
  return d


@pytest.mark.parametrize("breakage,message", [
    (lambda d: os.remove(d / "vocab.txt"), "no vocab.txt"),
    (lambda d: os.remove(d / "bert_config.json"), "no bert_config.json"),
    (lambda d: [os.remove(d / f) for f in os.listdir(d)
                if f.startswith("bert_model.ckpt")], "no checkpoint"),
    (lambda d: (d / "vocab.txt").write_text("[PAD]\n"),
     "1 entries but the config's vocab_size is 12"),
    (lambda d: (d / "bert_config.json").write_text(json.dumps(dict(
        CONFIG.to_dict(), intermediate_size=20))),
     "intermediate_size=20 but the checkpoint has 24"),
])
def test_bad_directories_are_one_line_errors(source, tmp_path, breakage,
                                             message):
  d = _copy(source[0], tmp_path)
  breakage(d)
  with pytest.raises(InputError, match=message) as info:
    BertClassifier.from_checkpoint(str(d), num_labels=2)
  assert "\n" not in str(info.value)


def test_a_checkpoint_without_the_encoder_is_refused(tmp_path):
  head = modeling.ClassificationHead(CONFIG, 2)
  d = tmp_path / "ckpt"
  d.mkdir()
  modeling.write_checkpoint(
      {n: v.numpy() for n, v in
       modeling.original_variable_names(head).items()},
      str(d / "bert_model.ckpt"))
  CONFIG.to_json_file(str(d / "bert_config.json"))
  (d / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
  with pytest.raises(InputError):
    BertClassifier.from_checkpoint(str(d), num_labels=2)


def test_the_real_minilm_directory_loads(tmp_path):
  from bert_tf2.scripts.quickstart import minilm_dir
  from modeling import hf_import
  model = BertClassifier.from_checkpoint(minilm_dir(), num_labels=2)
  assert model.pretrained.hf and model.pretrained.do_lower_case
  assert pretrained.detect_lower_case(model.pretrained.vocab_file)
  # The same weights as the converter's original-format checkpoint.
  hf_import.convert_hf_checkpoint(minilm_dir(), str(tmp_path / "ckpt"))
  shutil.copy(model.pretrained.vocab_file, str(tmp_path / "ckpt"))
  other = BertClassifier.from_checkpoint(str(tmp_path / "ckpt"), num_labels=2)
  ids = np.array([[101, 2023, 3185, 2003, 2307, 102]], np.int32)
  x = {"input_ids": ids, "input_mask": np.ones_like(ids),
       "token_type_ids": np.zeros_like(ids)}
  np.testing.assert_array_equal(model.bert(x)["pooled_output"].numpy(),
                                other.bert(x)["pooled_output"].numpy())
