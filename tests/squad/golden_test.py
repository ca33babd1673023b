"""SQuAD reading, features and decoding compared with the original code.

One golden subprocess runs the original `read_squad_examples`,
`convert_examples_to_features` and `write_predictions` on the hand-written
fixture for several configurations; here the same is done with `squad` and
every field / output file is compared.
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.squad import examples as squad_examples
from bert_tf2.squad import features as squad_features
from bert_tf2.squad import model as squad_model
from bert_tf2.squad import postprocess
from bert_tf2.squad import records
from tests.golden import run_golden
from tests.squad import fixture_data
import tokenization

# (name, do_lower_case, max_seq_length, doc_stride, max_query_length)
CONFIGS = [
    ("small", True, 64, 16, 12),
    ("cased_tiny", False, 48, 7, 5),
    ("default", True, 384, 128, 64),
]
# (name, config, version_2, n_best_size, max_answer_length, threshold)
PREDICT_CASES = [
    ("p_small_v1", "small", False, 20, 30, 0.0),
    ("p_small_v2", "small", True, 20, 30, 0.0),
    ("p_tiny_v2", "cased_tiny", True, 5, 4, 1.5),
    ("p_tiny_v1", "cased_tiny", False, 3, 2, 0.0),
    ("p_default_v2", "default", True, 20, 30, -2.0),
    ("p_crash_v2", "small", True, 3, 30, 0.0),
]
CRASH_QID = "p1q3"


def _our_features(data_file, cfg, is_training, version_2):
  _, lower, seq, stride, query = cfg
  tokenizer = tokenization.FullTokenizer(fixture_data.real_vocab_file(),
                                         do_lower_case=lower)
  examples = squad_examples.read_squad_examples(data_file, is_training,
                                                version_2)
  feats = []
  squad_features.convert_examples_to_features(
      examples, tokenizer, seq, stride, query, is_training, feats.append)
  return examples, feats


def _logits(features, seed, crash_example=None):
  """Random float32 logits with a few confident spans per feature."""
  rng = np.random.RandomState(seed)
  out = {}
  for f in features:
    n = len(f.input_ids)
    start = rng.normal(size=n).astype(np.float32)
    end = rng.normal(size=n).astype(np.float32)
    # Padding scores lower (as with a trained model) but still competes.
    start[len(f.tokens):] -= 3.0
    end[len(f.tokens):] -= 3.0
    pos = rng.randint(0, len(f.tokens))
    start[pos] += 4.0
    end[min(pos + rng.randint(0, 4), n - 1)] += 4.0
    if f.example_index == crash_example:
      # The question tokens get the best start logits: no valid span.
      start[:] = -5.0
      start[:4] = 10.0
    out[f.unique_id] = ([float(x) for x in start], [float(x) for x in end])
  return out


TINY_CONFIG = {"vocab_size": 30522, "hidden_size": 32, "num_hidden_layers": 2,
               "num_attention_heads": 4, "intermediate_size": 40,
               "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
               "attention_probs_dropout_prob": 0.1,
               "max_position_embeddings": 64, "type_vocab_size": 2,
               "initializer_range": 0.02}


def _logits_case(tmp, features):
  """A random SquadModel checkpoint and inputs for the original model."""
  config_file = os.path.join(tmp, "tiny_config.json")
  with open(config_file, "w") as f:
    json.dump(TINY_CONFIG, f)
  model = squad_model.SquadModel(modeling.BertConfig.from_dict(TINY_CONFIG))
  model({"input_ids": tf.zeros([1, 4], tf.int32)})
  rng = np.random.RandomState(0)
  names = modeling.original_variable_names(model)
  for var in names.values():
    var.assign(var.numpy() + rng.normal(0, 0.05, var.shape).astype(
        np.float32))
  prefix = modeling.write_checkpoint(names, os.path.join(tmp, "squad.ckpt"))
  feats = features[:10]
  return dict(kind="logits", bert_config_file=config_file,
              init_checkpoint=prefix,
              input_ids=[f.input_ids for f in feats],
              input_mask=[f.input_mask for f in feats],
              segment_ids=[f.segment_ids for f in feats],
              num_variables=len(names))


def _add_prediction(tmp, case, mine, index, name, n_best, max_len, thresh):
  """Our prediction files for random logits; the case runs the original."""
  examples, feats = mine
  crash = None
  if name.startswith("p_crash"):
    crash = [e.qas_id for e in examples].index(CRASH_QID)
  logits = _logits(feats, seed=index if crash is None else 1,
                   crash_example=crash)
  logits_file = os.path.join(tmp, name + ".logits.json")
  with open(logits_file, "w") as f:
    json.dump({str(k): v for k, v in logits.items()}, f)
  case.setdefault("predictions", []).append(dict(
      name=name, logits_file=logits_file, n_best_size=n_best,
      max_answer_length=max_len, null_score_diff_threshold=thresh,
      output_dir=os.path.join(tmp, "orig_" + name),
      our_dir=os.path.join(tmp, "ours_" + name)))
  our_dir = case["predictions"][-1]["our_dir"]
  os.makedirs(our_dir)
  raw = [postprocess.RawResult(uid, s, e) for uid, (s, e) in logits.items()]
  postprocess.write_predictions(
      examples, feats, raw, n_best, max_len, case["do_lower_case"],
      os.path.join(our_dir, "predictions.json"),
      os.path.join(our_dir, "nbest_predictions.json"),
      os.path.join(our_dir, "null_odds.json"),
      version_2_with_negative=case["version_2"],
      null_score_diff_threshold=thresh)


def _write_records(tmp, case, feats, training):
  name = "%s.tf_record" % ("train" if training else "eval")
  case["record_file"] = os.path.join(tmp, "orig_" + name)
  writer = records.FeatureWriter(os.path.join(tmp, "ours_" + name), training)
  for feature in feats:
    writer.process_feature(feature)
  writer.close()


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
  """Runs everything on both sides; returns (cases, ours, results)."""
  tmp = str(tmp_path_factory.mktemp("squad_golden"))
  files = {v2: fixture_data.write(tmp, v2) for v2 in (False, True)}
  cases, ours = [], []
  for cfg in CONFIGS:
    for v2 in (False, True):
      for training in (True, False):
        case = dict(
            kind="features", data_file=files[v2],
            vocab_file=fixture_data.real_vocab_file(), do_lower_case=cfg[1],
            max_seq_length=cfg[2], doc_stride=cfg[3], max_query_length=cfg[4],
            is_training=training, version_2=v2)
        mine = _our_features(files[v2], cfg, training, v2)
        if cfg[0] == "small" and v2:
          _write_records(tmp, case, mine[1], training)
        if not training:
          for i, (name, cfg_name, p_v2, n_best, max_len, thresh) in \
              enumerate(PREDICT_CASES):
            if cfg_name == cfg[0] and p_v2 == v2:
              _add_prediction(tmp, case, mine, i, name, n_best, max_len,
                              thresh)
        cases.append(case)
        ours.append(mine)
  small_v2_eval = [c for c in cases if c["max_seq_length"] == 64 and
                   c["version_2"] and not c["is_training"]][0]
  cases.append(_logits_case(tmp, ours[cases.index(small_v2_eval)][1]))
  ours.append(None)
  job = os.path.join(tmp, "job.json")
  with open(job, "w") as f:
    json.dump(cases, f)
  out = os.path.join(tmp, "out.json")
  run_golden("tests.golden.squad_golden", job, out)
  with open(out) as f:
    results = json.load(f)
  return cases, ours, results


def _prediction(golden, name):
  """(our dir, original dir, original's exception or None, version_2)."""
  cases, _, results = golden
  for case, result in zip(cases, results):
    for p, crashed in zip(case.get("predictions", []),
                          result.get("predictions", [])):
      if p["name"] == name:
        return p["our_dir"], p["output_dir"], crashed, case["version_2"]
  raise KeyError(name)


def _compare_examples(ours, theirs):
  assert len(ours) == len(theirs)
  for e, g in zip(ours, theirs):
    assert e.qas_id == g["qas_id"]
    assert e.question_text == g["question_text"]
    assert e.doc_tokens == g["doc_tokens"]
    assert e.orig_answer_text == g["orig_answer_text"]
    assert e.start_position == g["start_position"]
    assert e.end_position == g["end_position"]
    assert e.is_impossible == g["is_impossible"]


def _compare_features(ours, theirs):
  assert len(ours) == len(theirs)
  for f, g in zip(ours, theirs):
    for field in ("unique_id", "example_index", "doc_span_index", "tokens",
                  "input_ids", "input_mask", "segment_ids", "start_position",
                  "end_position", "is_impossible"):
      assert getattr(f, field) == g[field], (field, f.unique_id)
    assert ({str(k): v for k, v in f.token_to_orig_map.items()} ==
            g["token_to_orig_map"]), f.unique_id
    assert ({str(k): v for k, v in f.token_is_max_context.items()} ==
            g["token_is_max_context"]), f.unique_id


def test_examples_and_features_match_original(golden):
  cases, ours, results = golden
  windows = 0
  for case, mine, theirs in zip(cases, ours, results):
    if case["kind"] == "logits":
      continue
    examples, feats = mine[0], mine[1]
    _compare_examples(examples, theirs["examples"])
    _compare_features(feats, theirs["features"])
    windows = max(windows, max(f.doc_span_index for f in feats))
  # The fixture really exercises the sliding window.
  assert windows >= 5


def test_tf_records_match_original(golden):
  cases, _, _ = golden
  compared = 0
  for case in cases:
    if case.get("record_file"):
      ours = case["record_file"].replace("orig_", "ours_")
      a = list(tf.data.TFRecordDataset(ours).as_numpy_iterator())
      b = list(tf.data.TFRecordDataset(case["record_file"]).as_numpy_iterator())
      assert len(a) == len(b) > 10
      for x, y in zip(a, b):
        # Same records; byte order of the map fields is per-process in the
        # original, sorted in ours.
        assert tf.train.Example.FromString(x) == tf.train.Example.FromString(y)
      compared += 1
  assert compared == 2


def test_training_positions_cover_cls_and_spans(golden):
  cases, ours, _ = golden
  for case, mine in zip(cases, ours):
    if case["kind"] != "features" or not case["is_training"]:
      continue
    feats = mine[1]
    in_span = [f for f in feats if f.start_position > 0]
    at_cls = [f for f in feats if f.start_position == 0]
    assert in_span and at_cls
    for f in in_span:
      assert f.token_to_orig_map[f.start_position] <= \
          f.token_to_orig_map[f.end_position]
    if case["version_2"]:
      assert any(f.is_impossible and f.start_position == 0 for f in feats)


def _read(path):
  with open(path, encoding="utf-8") as f:
    return f.read()


@pytest.mark.parametrize("name", [c[0] for c in PREDICT_CASES
                                  if not c[0].startswith("p_crash")])
def test_prediction_files_match_original(golden, name):
  our_dir, orig_dir, crashed, v2 = _prediction(golden, name)
  assert crashed is None
  files = ["predictions.json", "nbest_predictions.json"]
  if v2:
    files.append("null_odds.json")
  else:
    assert not os.path.exists(os.path.join(our_dir, "null_odds.json"))
  for filename in files:
    assert _read(os.path.join(our_dir, filename)) == _read(
        os.path.join(orig_dir, filename)), filename
  preds = json.loads(_read(os.path.join(our_dir, "predictions.json")))
  assert sum(1 for text in preds.values() if text) >= 5


def test_no_non_null_answer_is_fixed(golden):
  our_dir, _, crashed, _ = _prediction(golden, "p_crash_v2")
  assert crashed is not None  # The original fails here.
  preds = json.loads(_read(os.path.join(our_dir, "predictions.json")))
  nbest = json.loads(_read(os.path.join(our_dir, "nbest_predictions.json")))
  odds = json.loads(_read(os.path.join(our_dir, "null_odds.json")))
  assert preds[CRASH_QID] == ""
  assert all(e["text"] == "" for e in nbest[CRASH_QID])
  assert odds[CRASH_QID] == postprocess.NO_CANDIDATE_SCORE_DIFF
  assert abs(sum(e["probability"] for e in nbest[CRASH_QID]) - 1.0) < 1e-9
  assert sum(1 for text in preds.values() if text) >= 5


def test_span_logits_match_original_model(golden):
  cases, _, results = golden
  case, theirs = cases[-1], results[-1]
  assert theirs["num_restored"] == case["num_variables"]
  model = squad_model.SquadModel(modeling.BertConfig.from_dict(TINY_CONFIG))
  model({"input_ids": tf.zeros([1, 4], tf.int32)})
  report = modeling.init_from_checkpoint(model, case["init_checkpoint"])
  assert not report.not_loaded
  start, end = model({"input_ids": tf.constant(case["input_ids"]),
                      "input_mask": tf.constant(case["input_mask"]),
                      "segment_ids": tf.constant(case["segment_ids"])})
  np.testing.assert_allclose(start.numpy(), theirs["start_logits"],
                             rtol=0, atol=2e-5)
  np.testing.assert_allclose(end.numpy(), theirs["end_logits"],
                             rtol=0, atol=2e-5)
  assert np.std(theirs["start_logits"]) > 0.01
