"""Attention maps equal a direct numpy computation from the checkpoint.

The reference below runs BERT's forward pass in numpy straight from the
checkpoint's variables (embeddings + LayerNorm, then per layer: query/key
projections split into heads, softmax(q k^T / sqrt(d)), the rest of the
layer to get the next layer's input). Weights are large random values so
that every layer and head attends differently: layers or heads swapped,
reversed or taken from the wrong place cannot pass.
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from bert_research.analysis import attention
from bert_research.analysis import attention_run

WORDS = ["the", "cat", "sat", "on", "mat", "it", "pur", "##red", "."]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
CONFIG = {"vocab_size": len(VOCAB), "hidden_size": 16,
          "num_hidden_layers": 3, "num_attention_heads": 4,
          "intermediate_size": 24, "max_position_embeddings": 32,
          "type_vocab_size": 2, "hidden_act": "gelu"}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
  import modeling  # pylint: disable=g-import-not-at-top
  out = str(tmp_path_factory.mktemp("attention_ref"))
  with open(os.path.join(out, "vocab.txt"), "w") as f:
    f.write("\n".join(VOCAB) + "\n")
  with open(os.path.join(out, "bert_config.json"), "w") as f:
    json.dump(CONFIG, f)
  model = modeling.BertModel(modeling.BertConfig.from_dict(CONFIG))
  model({"input_ids": np.zeros((1, 3), np.int32)}, training=False)
  rng = np.random.RandomState(4)
  variables = modeling.original_variable_names(model)
  for name, var in variables.items():
    scale = 0.1 if "LayerNorm" in name else 0.6
    base = 1.0 if name.endswith("gamma") else 0.0
    var.assign(base + rng.normal(0.0, scale, var.shape).astype(np.float32))
  modeling.write_checkpoint(variables, os.path.join(out, "bert_model.ckpt"))
  return out


def _layer_norm(x, gamma, beta):
  mean = x.mean(-1, keepdims=True)
  var = ((x - mean) ** 2).mean(-1, keepdims=True)
  return (x - mean) / np.sqrt(var + 1e-12) * gamma + beta


def _gelu(x):
  return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) *
                                  (x + 0.044715 * x ** 3)))


def reference_attention(ckpt, ids, types):
  """float64 [layers, heads, S, S] from the checkpoint, in numpy."""
  reader = tf.train.load_checkpoint(ckpt)
  w = lambda name: reader.get_tensor(name).astype(np.float64)
  heads = CONFIG["num_attention_heads"]
  size = CONFIG["hidden_size"] // heads
  x = (w("bert/embeddings/word_embeddings")[ids] +
       w("bert/embeddings/token_type_embeddings")[types] +
       w("bert/embeddings/position_embeddings")[:len(ids)])
  x = _layer_norm(x, w("bert/embeddings/LayerNorm/gamma"),
                  w("bert/embeddings/LayerNorm/beta"))
  maps = []
  for layer in range(CONFIG["num_hidden_layers"]):
    p = "bert/encoder/layer_%d/" % layer
    dense = lambda v, n: v @ w(p + n + "/kernel") + w(p + n + "/bias")
    split = lambda v: v.reshape(len(ids), heads, size).transpose(1, 0, 2)
    q = split(dense(x, "attention/self/query"))
    k = split(dense(x, "attention/self/key"))
    v = split(dense(x, "attention/self/value"))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    maps.append(probs)
    context = (probs @ v).transpose(1, 0, 2).reshape(len(ids), -1)
    a = _layer_norm(dense(context, "attention/output/dense") + x,
                    w(p + "attention/output/LayerNorm/gamma"),
                    w(p + "attention/output/LayerNorm/beta"))
    h = _gelu(dense(a, "intermediate/dense"))
    x = _layer_norm(dense(h, "output/dense") + a,
                    w(p + "output/LayerNorm/gamma"),
                    w(p + "output/LayerNorm/beta"))
  return np.stack(maps)


def test_attention_maps_equal_direct_computation(model_dir):
  ckpt = os.path.join(model_dir, "bert_model.ckpt")
  model, _ = attention_run.load_bert(
      os.path.join(model_dir, "bert_config.json"), ckpt)
  ids = [2, 5, 6, 7, 8, 13, 3, 10, 11, 12, 3]
  types = [0] * 7 + [1] * 4
  got = attention.attention_maps(model, ids, types)
  want = reference_attention(ckpt, np.array(ids), np.array(types))
  assert got.shape == want.shape == (3, 4, 11, 11)
  np.testing.assert_allclose(got, want, atol=2e-5)
  # The test has power: layers and heads differ from each other a lot.
  assert np.abs(want[0] - want[2]).max() > 0.2
  assert np.abs(want[1, 0] - want[1, 3]).max() > 0.2


def test_visualize_selects_the_named_layers_and_heads(model_dir, tmp_path):
  ckpt = os.path.join(model_dir, "bert_model.ckpt")
  tokens, probs = attention_run.visualize(
      os.path.join(model_dir, "bert_config.json"), ckpt,
      os.path.join(model_dir, "vocab.txt"), "the cat sat on the mat.",
      str(tmp_path / "a.png"), text_b="it purred.", layers="-1,0",
      heads="3,1")
  ids = np.array([VOCAB.index(t) for t in tokens])
  types = np.array([0] * (tokens.index("[SEP]") + 1) +
                   [1] * (len(tokens) - tokens.index("[SEP]") - 1))
  want = reference_attention(ckpt, ids, types)
  # Sorted indices: layers [0, 2], heads [1, 3].
  np.testing.assert_allclose(probs, want[[0, 2]][:, [1, 3]], atol=2e-5)
