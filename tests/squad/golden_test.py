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

from squad import examples as squad_examples
from squad import features as squad_features
from squad import postprocess
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
    pos = rng.randint(0, len(f.tokens))
    start[pos] += 4.0
    end[min(pos + rng.randint(0, 4), n - 1)] += 4.0
    if f.example_index == crash_example:
      # The question tokens get the best start logits: no valid span.
      start[:] = -5.0
      start[:4] = 10.0
    out[f.unique_id] = ([float(x) for x in start], [float(x) for x in end])
  return out


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("squad_golden")
  files = {v2: fixture_data.write(str(tmp), v2) for v2 in (False, True)}
  configs = {c[0]: c for c in CONFIGS}
  cases, ours = [], []
  for cfg in CONFIGS:
    for v2 in (False, True):
      for training in (True, False):
        cases.append(dict(
            kind="features", data_file=files[v2],
            vocab_file=fixture_data.real_vocab_file(), do_lower_case=cfg[1],
            max_seq_length=cfg[2], doc_stride=cfg[3], max_query_length=cfg[4],
            is_training=training, version_2=v2))
        ours.append(_our_features(files[v2], cfg, training, v2))
  for i, (name, cfg_name, v2, n_best, max_len, thresh) in enumerate(
      PREDICT_CASES):
    cfg = configs[cfg_name]
    examples, feats = _our_features(files[v2], cfg, False, v2)
    crash = None
    if name.startswith("p_crash"):
      crash = [e.qas_id for e in examples].index(CRASH_QID)
    logits = _logits(feats, seed=i if crash is None else 1, crash_example=crash)
    logits_file = os.path.join(str(tmp), name + ".logits.json")
    with open(logits_file, "w") as f:
      json.dump({str(k): v for k, v in logits.items()}, f)
    cases.append(dict(
        kind="predict", data_file=files[v2],
        vocab_file=fixture_data.real_vocab_file(), do_lower_case=cfg[1],
        max_seq_length=cfg[2], doc_stride=cfg[3], max_query_length=cfg[4],
        is_training=False, version_2=v2, logits_file=logits_file,
        n_best_size=n_best, max_answer_length=max_len,
        null_score_diff_threshold=thresh,
        output_dir=os.path.join(str(tmp), "orig_" + name)))
    our_dir = os.path.join(str(tmp), "ours_" + name)
    os.makedirs(our_dir)
    raw = [postprocess.RawResult(uid, s, e) for uid, (s, e) in logits.items()]
    postprocess.write_predictions(
        examples, feats, raw, n_best, max_len, cfg[1],
        os.path.join(our_dir, "predictions.json"),
        os.path.join(our_dir, "nbest_predictions.json"),
        os.path.join(our_dir, "null_odds.json"),
        version_2_with_negative=v2, null_score_diff_threshold=thresh)
    ours.append((examples, feats, our_dir))
  job = os.path.join(str(tmp), "job.json")
  with open(job, "w") as f:
    json.dump(cases, f)
  out = os.path.join(str(tmp), "out.json")
  run_golden("tests.golden.squad_golden", job, out)
  with open(out) as f:
    results = json.load(f)
  return cases, ours, results


def _case_ids(cases):
  return range(len(cases))


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
    examples, feats = mine[0], mine[1]
    _compare_examples(examples, theirs["examples"])
    _compare_features(feats, theirs["features"])
    windows = max(windows, max(f.doc_span_index for f in feats))
  # The fixture really exercises the sliding window.
  assert windows >= 5


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
  cases, ours, results = golden
  index = len(cases) - len(PREDICT_CASES) + [c[0] for c in
                                             PREDICT_CASES].index(name)
  case, mine, theirs = cases[index], ours[index], results[index]
  assert theirs["crashed"] is None
  files = ["predictions.json", "nbest_predictions.json"]
  if case["version_2"]:
    files.append("null_odds.json")
  else:
    assert not os.path.exists(os.path.join(mine[2], "null_odds.json"))
  for name in files:
    assert _read(os.path.join(mine[2], name)) == _read(
        os.path.join(case["output_dir"], name)), name
  preds = json.loads(_read(os.path.join(mine[2], "predictions.json")))
  assert len(preds) == len(mine[0])


def test_no_non_null_answer_is_fixed(golden):
  cases, ours, results = golden
  index = len(cases) - 1
  assert results[index]["crashed"] is not None  # The original fails here.
  our_dir = ours[index][2]
  preds = json.loads(_read(os.path.join(our_dir, "predictions.json")))
  nbest = json.loads(_read(os.path.join(our_dir, "nbest_predictions.json")))
  odds = json.loads(_read(os.path.join(our_dir, "null_odds.json")))
  assert preds[CRASH_QID] == ""
  assert all(e["text"] == "" for e in nbest[CRASH_QID])
  assert odds[CRASH_QID] == postprocess.NO_CANDIDATE_SCORE_DIFF
  assert abs(sum(e["probability"] for e in nbest[CRASH_QID]) - 1.0) < 1e-9
  assert sum(1 for text in preds.values() if text) >= 5
