"""extract_features: golden parity with the original, pooling, bad input.

The golden subprocess writes a random checkpoint with tf.compat.v1 Saver and
the original's JSON lines for it; our script must produce the same file.
"""

import json
import os

import numpy as np
import pytest

from bert_tf2.common import InputError
from bert_tf2 import feature_extraction
from tests.golden import run_golden
from tests.reliability import fixtures
from tests.squad import fixture_data

CONFIG = {"vocab_size": 30522, "hidden_size": 32, "num_hidden_layers": 3,
          "num_attention_heads": 4, "intermediate_size": 48,
          "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
          "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 40,
          "type_vocab_size": 2, "initializer_range": 0.02}
LAYERS = "-1,0,-3,1"
MAX_SEQ = 24
LINES = [
    "Who was Jim Henson ? ||| Jim Henson was a puppeteer",
    "The quick brown fox jumps over the lazy dog.",
    "",
    "Café naïve résumé — 北京是中国的首都。",
    "a ||| b ||| c",
    "This sentence is much longer than the maximum sequence length allows, "
    "so the original truncates it to fit into twenty four word pieces.",
    "Two long halves: the first one keeps going and going on ||| while the "
    "second one is short",
    "   padded with spaces and a tab\t",
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("extract")
  config = str(tmp / "bert_config.json")
  with open(config, "w") as f:
    json.dump(CONFIG, f)
  input_file = str(tmp / "input.txt")
  with open(input_file, "w", encoding="utf-8") as f:
    f.write("\n".join(LINES) + "\n")
  ckpt = str(tmp / "ckpt" / "bert_model.ckpt")
  os.makedirs(os.path.dirname(ckpt))
  golden_out = str(tmp / "golden.jsonl")
  run_golden("tests.golden.extract_features_golden", config,
             fixture_data.real_vocab_file(), input_file, LAYERS, MAX_SEQ, "1",
             ckpt, golden_out)
  return dict(tmp=tmp, config=config, input_file=input_file, ckpt=ckpt,
              golden=golden_out, vocab=fixture_data.real_vocab_file())


def _load(path):
  with open(path, encoding="utf-8") as f:
    return [json.loads(line) for line in f]


def _common_flags(s, output_file):
  return ["--input_file=" + s["input_file"], "--output_file=" + output_file,
          "--vocab_file=" + s["vocab"], "--bert_config_file=" + s["config"],
          "--init_checkpoint=" + s["ckpt"], "--layers=" + LAYERS,
          "--max_seq_length=%d" % MAX_SEQ]


def test_script_output_equals_original(setup):
  out = str(setup["tmp"] / "ours.jsonl")
  proc = fixtures.run_script("extract_features.py",
                             _common_flags(setup, out) + ["--batch_size=3"])
  assert proc.returncode == 0, proc.stderr[-3000:]
  ours, theirs = _load(out), _load(setup["golden"])
  assert len(ours) == len(theirs) == len(LINES)
  same = total = 0
  for a, b in zip(ours, theirs):
    assert list(a) == ["linex_index", "features"]
    assert a["linex_index"] == b["linex_index"]
    assert [t["token"] for t in a["features"]] == \
        [t["token"] for t in b["features"]]
    for ta, tb in zip(a["features"], b["features"]):
      assert [l["index"] for l in ta["layers"]] == \
          [l["index"] for l in tb["layers"]] == [-1, 0, -3, 1]
      for la, lb in zip(ta["layers"], tb["layers"]):
        va, vb = np.array(la["values"]), np.array(lb["values"])
        assert va.shape == (CONFIG["hidden_size"],)
        np.testing.assert_allclose(va, vb, rtol=0, atol=3e-6)
        same += int(np.sum(va == vb))
        total += va.size
  # Values differ only by float32 round-off, which flips the 6th decimal of
  # a few percent of them; the rest is the same text.
  assert same / total > 0.85
  # Pair lines use token type 1 after the first [SEP]; the golden covers it.
  assert ours[0]["features"][0]["token"] == "[CLS]"
  assert sum(t["token"] == "[SEP]" for t in ours[0]["features"]) == 2


def test_pooling_cls_and_mean(setup):
  per_token = _load(setup["golden"])
  for pooling in ("cls", "mean"):
    out = str(setup["tmp"] / ("pooled_%s.jsonl" % pooling))
    n = feature_extraction.extract_to_file(
        input_file=setup["input_file"], output_file=out,
        bert_config_file=setup["config"], init_checkpoint=setup["ckpt"],
        vocab_file=setup["vocab"], layers="-1,-2", max_seq_length=MAX_SEQ,
        batch_size=5, pooling=pooling)
    lines = _load(out)
    assert n == len(lines) == len(LINES)
    for line, ref in zip(lines, per_token):
      assert list(line) == ["linex_index", "pooling", "layers"]
      assert line["pooling"] == pooling
      assert [l["index"] for l in line["layers"]] == [-1, -2]
      vectors = np.array([t["layers"][0]["values"] for t in ref["features"]])
      want = vectors[0] if pooling == "cls" else vectors.mean(axis=0)
      np.testing.assert_allclose(line["layers"][0]["values"], want,
                                 atol=1e-5)


def test_trimmed_batches_equal_fixed_padding(setup, monkeypatch):
  from bert_tf2.feature_extraction import extractor as fe_extractor
  lengths = []
  original_run_batch = fe_extractor.FeatureExtractor._run_batch

  def spy(self, arrays):
    lengths.append(int(arrays[0].shape[1]))
    return original_run_batch(self, arrays)
  monkeypatch.setattr(fe_extractor.FeatureExtractor, "_run_batch", spy)
  outputs = {}
  for trim in (False, True):
    out = str(setup["tmp"] / ("trim_%s.jsonl" % trim))
    feature_extraction.extract_to_file(
        input_file=setup["input_file"], output_file=out,
        bert_config_file=setup["config"], init_checkpoint=setup["ckpt"],
        vocab_file=setup["vocab"], layers=LAYERS, max_seq_length=40,
        batch_size=2, trim_padding=trim)
    outputs[trim] = _load(out)
  # 4 batches of 2 lines at 40, then trimmed to the buckets of 40.
  assert len(lengths) == 8 and lengths[:4] == [40] * 4
  assert all(n % 8 == 0 for n in lengths[4:]), lengths
  assert sum(lengths[4:]) < 120, lengths
  for a, b in zip(outputs[True], outputs[False]):
    assert [t["token"] for t in a["features"]] == \
        [t["token"] for t in b["features"]]
    for ta, tb in zip(a["features"], b["features"]):
      for la, lb in zip(ta["layers"], tb["layers"]):
        np.testing.assert_allclose(la["values"], lb["values"], atol=3e-6)


@pytest.mark.parametrize("change,message", [
    (dict(layers="-1,x"), "--layers=-1,x"),
    (dict(layers="-1,5"), "layer 5 does not exist"),
    (dict(input_file="/nonexistent/in.txt"), "--input_file=/nonexistent"),
    (dict(pooling="max"), "--pooling=max"),
    (dict(max_seq_length=4096), "max_position_embeddings"),
    (dict(init_checkpoint="/nonexistent/ckpt"), "--init_checkpoint"),
])
def test_bad_inputs_raise_clear_errors(setup, change, message):
  kwargs = dict(
      input_file=setup["input_file"],
      output_file=str(setup["tmp"] / "bad.jsonl"),
      bert_config_file=setup["config"], init_checkpoint=setup["ckpt"],
      vocab_file=setup["vocab"], layers="-1", max_seq_length=MAX_SEQ)
  kwargs.update(change)
  with pytest.raises(InputError, match=message.replace("|", r"\|")):
    feature_extraction.extract_to_file(**kwargs)
  assert not os.path.exists(kwargs["output_file"])


def test_checkpoint_of_another_shape_is_rejected(setup):
  config = dict(CONFIG, hidden_size=48, intermediate_size=64)
  path = str(setup["tmp"] / "other_config.json")
  with open(path, "w") as f:
    json.dump(config, f)
  out = str(setup["tmp"] / "other.jsonl")
  with pytest.raises(InputError, match=r"other_config.json says "
                     r"hidden_size=48 but the checkpoint has 32"):
    feature_extraction.extract_to_file(
        input_file=setup["input_file"], output_file=out,
        bert_config_file=path, init_checkpoint=setup["ckpt"],
        vocab_file=setup["vocab"], layers="-1", max_seq_length=MAX_SEQ)
  assert not os.path.exists(out)


def test_read_examples_splits_pairs_like_the_original(tmp_path):
  path = tmp_path / "in.txt"
  path.write_bytes("x ||| y\r\n\nonly a\na ||| b ||| c".encode("utf-8"))
  examples = feature_extraction.read_examples(str(path))
  assert [(e.unique_id, e.text_a, e.text_b) for e in examples] == [
      (0, "x", "y"), (1, "", None), (2, "only a", None),
      (3, "a ||| b", "c")]
  bad = tmp_path / "latin1.txt"
  bad.write_bytes(b"caf\xe9\n")
  with pytest.raises(InputError, match="not UTF-8"):
    feature_extraction.read_examples(str(bad))


# extract_features.py --precision: (the flag's value or None for the
# default, the JSON lines' tolerance against the SavedModel's numbers).
PRECISION_CASES = {"default": (None, 2e-6), "bfloat16": ("bfloat16", 0.05)}


@pytest.mark.parametrize("case", sorted(PRECISION_CASES))
def test_export_dir_serves_the_json_lines_numbers(bfloat16_cpu, setup, case):
  """At the default (on a faked bfloat16 CPU) and with --precision=bfloat16,
  the SavedModel serves the JSON lines' numbers and records the precision
  they were computed in; bfloat16 is not float32's numbers."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  import tensorflow_text  # pylint: disable=g-import-not-at-top,unused-import
  from bert_tf2.feature_extraction import examples as fe_examples  # pylint: disable=g-import-not-at-top
  precision, atol = PRECISION_CASES[case]
  out = str(setup["tmp"] / ("exported_%s.jsonl" % case))
  export_dir = str(setup["tmp"] / ("encoder_%s" % case))
  kwargs = dict(input_file=setup["input_file"], output_file=out,
                bert_config_file=setup["config"],
                init_checkpoint=setup["ckpt"], vocab_file=setup["vocab"],
                layers=LAYERS, max_seq_length=MAX_SEQ, batch_size=4)
  if precision:
    kwargs["precision"] = precision
  (setup["tmp"] / "not_a_model").mkdir(exist_ok=True)
  with pytest.raises(InputError, match="not a SavedModel"):
    feature_extraction.extract_to_file(**dict(
        kwargs, export_dir=str(setup["tmp"] / "not_a_model")))
  assert not os.path.exists(out)
  feature_extraction.extract_to_file(export_dir=export_dir, **kwargs)
  examples = fe_examples.read_examples(setup["input_file"])
  loaded = tf.saved_model.load(export_dir)
  assert loaded.precision.numpy().decode() == (precision or "float32")
  served = loaded.signatures["serving_pair"](
      text_a=tf.constant([e.text_a for e in examples]),
      text_b=tf.constant([e.text_b or "" for e in examples]))
  vectors = served["token_vectors"].numpy()
  assert vectors.shape == (len(LINES), MAX_SEQ, 4, CONFIG["hidden_size"])
  reference = str(setup["tmp"] / "float32_reference.jsonl")
  if not os.path.exists(reference):
    feature_extraction.extract_to_file(**dict(kwargs, output_file=reference,
                                              precision="float32"))
  for i, (line, line32) in enumerate(zip(_load(out), _load(reference))):
    num_tokens = len(line["features"])
    assert served["input_mask"].numpy()[i].sum() == num_tokens
    want = np.array([[l["values"] for l in t["layers"]]
                     for t in line["features"]])
    np.testing.assert_allclose(vectors[i, :num_tokens], want, atol=atol)
    float32 = np.array([[l["values"] for l in t["layers"]]
                        for t in line32["features"]])
    assert np.array_equal(want, float32) == (precision is None)


def test_precision_flag_refuses_another_value(setup):
  with pytest.raises(InputError, match=r"^--precision=int8: expected one "
                     "of float32, bfloat16$"):
    feature_extraction.extract_to_file(
        input_file=setup["input_file"], output_file=str(setup["tmp"] / "x"),
        bert_config_file=setup["config"], init_checkpoint=setup["ckpt"],
        vocab_file=setup["vocab"], precision="int8")
