"""Pooling modes and how a model directory chooses one."""

import json

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.common import InputError
from bert_tf2.embedding import pooling
from bert_tf2.embedding.encoder import SentenceEncoder


def _st_dir(tmp_path, pooling_config, normalize):
  modules = [{"idx": 0, "name": "0", "path": "",
              "type": "sentence_transformers.models.Transformer"},
             {"idx": 1, "name": "1", "path": "1_Pooling",
              "type": "sentence_transformers.models.Pooling"}]
  if normalize:
    modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                    "type": "sentence_transformers.models.Normalize"})
  (tmp_path / "modules.json").write_text(json.dumps(modules))
  (tmp_path / "1_Pooling").mkdir()
  (tmp_path / "1_Pooling" / "config.json").write_text(
      json.dumps(pooling_config))
  return str(tmp_path)


def test_directory_without_sentence_transformers_files_pools_cls(tmp_path):
  assert pooling.pooling_from_dir(str(tmp_path)) == ("cls", False)


def test_cls_pooling_without_normalize(tmp_path):
  d = _st_dir(tmp_path, {"pooling_mode_cls_token": True}, normalize=False)
  assert pooling.pooling_from_dir(d) == ("cls", False)


def test_unsupported_pooling_config_is_refused(tmp_path):
  d = _st_dir(tmp_path, {"pooling_mode_weightedmean_tokens": True}, True)
  with pytest.raises(InputError, match="1_Pooling/config.json: supported"):
    pooling.pooling_from_dir(d)


def test_mean_pooling_ignores_padding_and_normalize_gives_unit_rows():
  x = tf.constant([[[1., 1.], [3., 5.], [100., 100.]],
                   [[2., 0.], [0., 0.], [0., 0.]]])
  mask = tf.constant([[1, 1, 0], [1, 0, 0]])
  mean = pooling.pool(x, mask, "mean")
  np.testing.assert_allclose(mean.numpy(), [[2., 3.], [2., 0.]])
  np.testing.assert_allclose(pooling.pool(x, mask, "mean_sqrt_len").numpy(),
                             [[4. / np.sqrt(2), 6. / np.sqrt(2)], [2., 0.]],
                             rtol=1e-6)
  np.testing.assert_allclose(pooling.pool(x, mask, "cls").numpy(),
                             [[1., 1.], [2., 0.]])
  unit = pooling.l2_normalize(mean).numpy()
  np.testing.assert_allclose(unit, [[2. / np.sqrt(13), 3. / np.sqrt(13)],
                                    [1., 0.]], rtol=1e-6)


def test_encoder_padding_does_not_change_a_sentence_vector(tmp_path):
  tf.keras.utils.set_random_seed(0)
  cfg = modeling.BertConfig(vocab_size=12, hidden_size=8,
                            num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=16, max_position_embeddings=16)
  enc = SentenceEncoder(cfg, "mean", normalize=True)
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b",
                              "c"]) + "\n")
  import tokenization
  enc.tokenizer = tokenization.FullTokenizer(str(vocab))
  alone = enc.encode(["a"])
  batched = enc.encode(["a", "b c a b c a"])
  np.testing.assert_allclose(batched[0], alone[0], rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1., rtol=1e-6)
  assert enc.encode([]).shape == (0, 8)
  with pytest.raises(InputError, match="expected a list of texts"):
    enc.encode("a")
