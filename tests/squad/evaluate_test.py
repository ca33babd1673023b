"""Exact match / F1 on hand-computed cases (v1.1 and v2.0 definitions)."""

import json

import pytest

from bert_tf2.common import InputError
from bert_tf2.squad import evaluate as ev


def _data(qas):
  return [{"paragraphs": [{"context": "c", "qas": qas}]}]


def test_normalization():
  assert ev.normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
  assert ev.normalize_answer("an apple, a pear and THE plum") == \
      "apple pear and plum"
  assert ev.normalize_answer("theater") == "theater"  # Whole words only.
  assert ev.exact_match_score("Gustave Eiffel.", "gustave eiffel") == 1
  assert ev.exact_match_score("Eiffel", "Gustave Eiffel") == 0


def test_f1_token_overlap():
  # pred: "gustave eiffels company" vs gold "gustave eiffel": 1 common token.
  assert ev.f1_score("Gustave Eiffel's company", "Gustave Eiffel") == \
      pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
  assert ev.f1_score("x b b", "b b c") == pytest.approx(2 / 3)
  assert ev.f1_score("a b b", "b b c") == pytest.approx(0.8)  # "a" dropped.
  assert ev.f1_score("x", "y") == 0.0
  # v1.1: empty vs empty is 0; v2.0: 1.
  assert ev.f1_score("", "") == 0.0
  assert ev.f1_score("", "", version_2=True) == 1.0
  assert ev.f1_score("the", "", version_2=True) == 1.0  # Normalizes to "".


def test_v1_max_over_gold_and_missing_predictions():
  data = _data([
      {"id": "a", "answers": [{"text": "Denver Broncos"},
                              {"text": "The Broncos"}]},
      {"id": "b", "answers": [{"text": "1889"}]},
      {"id": "c", "answers": [{"text": "x y"}]},
  ])
  result = ev.evaluate_v1(data, {"a": "Broncos", "b": "in 1889"})
  # a: EM 1 (vs "The Broncos"), F1 1; b: EM 0, F1 2/3; c: missing -> 0.
  assert result["exact_match"] == pytest.approx(100 / 3)
  assert result["f1"] == pytest.approx(100 * (1 + 2 / 3) / 3)


def test_v2_no_answer_handling_and_thresholds():
  data = _data([
      {"id": "a", "answers": [{"text": "Paris"}], "is_impossible": False},
      {"id": "b", "answers": [], "is_impossible": True},
      {"id": "c", "answers": [{"text": "the"}], "is_impossible": False},
      {"id": "d", "answers": [{"text": "blue sky"}], "is_impossible": False},
  ])
  preds = {"a": "Paris", "b": "", "c": "", "d": "sky"}
  result = ev.evaluate_v2(data, preds)
  # c's only gold answer normalizes to "": "" matches it, but c still counts
  # as answerable (its answers list is not empty), as the official script.
  assert result["total"] == 4
  assert result["HasAns_total"] == 3 and result["NoAns_total"] == 1
  assert result["exact"] == pytest.approx(75.0)
  assert result["f1"] == pytest.approx(100 * (1 + 1 + 1 + 2 / 3) / 4)
  assert result["NoAns_exact"] == 100.0
  # With a no-answer score above the threshold, d counts as "" (F1 0).
  na = {"a": 0.1, "b": 0.9, "c": 0.8, "d": 2.0}
  result = ev.evaluate_v2(data, preds, na, na_prob_thresh=1.0)
  assert result["exact"] == pytest.approx(75.0)
  assert result["f1"] == pytest.approx(75.0)
  # Best thresholds: answering a (0.1) and c (0.8) helps EM; answering d
  # (2.0) helps F1.
  assert result["best_exact"] == pytest.approx(75.0)
  assert result["best_exact_thresh"] == pytest.approx(0.8)
  assert result["best_f1"] == pytest.approx(100 * (3 + 2 / 3) / 4)
  assert result["best_f1_thresh"] == pytest.approx(2.0)


def test_evaluate_files_and_errors(tmp_path):
  data = {"version": "1.1", "data": _data(
      [{"id": "a", "answers": [{"text": "yes"}]}])}
  data_file = tmp_path / "d.json"
  data_file.write_text(json.dumps(data))
  pred_file = tmp_path / "p.json"
  pred_file.write_text(json.dumps({"a": "Yes."}))
  assert ev.evaluate_files(str(data_file), str(pred_file)) == {
      "exact_match": 100.0, "f1": 100.0}
  with pytest.raises(InputError, match="--pred_file=.*file not found"):
    ev.evaluate_files(str(data_file), str(tmp_path / "none.json"))
  bad = tmp_path / "bad.json"
  bad.write_text("{not json")
  with pytest.raises(InputError, match="--data_file=.*cannot read"):
    ev.evaluate_files(str(bad), str(pred_file))
  v2_data = {"data": _data([{"id": "a", "answers": [],
                              "is_impossible": True}])}
  data_file.write_text(json.dumps(v2_data))
  with pytest.raises(InputError, match="--data_file=.*'a' has no gold"):
    ev.evaluate_files(str(data_file), str(pred_file), version="1.1")
  assert ev.evaluate_files(str(data_file), str(pred_file))["exact"] == 0.0
  pred_file.write_text(json.dumps(["a"]))
  with pytest.raises(InputError, match="--pred_file=.*expected a JSON object"):
    ev.evaluate_files(str(data_file), str(pred_file))
