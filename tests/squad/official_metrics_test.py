"""SQuAD EM/F1 equal the official definitions on many generated datasets.

Questions have several gold answers (as SQuAD's dev sets do: up to 5 per
question, often differing only in articles, case or punctuation),
predictions are gold answers (any of them), perturbed gold answers, other
text, empty, or missing; v2.0 adds unanswerable questions, answers that
normalize to "", and no-answer probabilities with ties.
"""

import random

import pytest

from bert_tf2.squad import evaluate as ev
from tests.squad import official_reference as official

WORDS = ["Denver", "Broncos", "the", "The", "a", "An", "1889", "Eiffel-Tower",
         "Paris,", "paris", "blue", "sky!", "of", "theater", "Ann", "(1998)",
         "x", "y", "y", "Zürich", "naïve", "an"]
EMPTY_AFTER_NORMALIZING = ["the", "A", "!", "an ...", " "]


def _phrase(rng, low=1, high=4):
  return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _perturb(rng, text):
  """A near miss or a normalization-equivalent variant of `text`."""
  tokens = text.split()
  kind = rng.randrange(5)
  if kind == 0 and len(tokens) > 1:
    del tokens[rng.randrange(len(tokens))]
  elif kind == 1:
    tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(WORDS))
  elif kind == 2:
    return "The " + text.upper() + "."
  elif kind == 3:
    return "  ".join(tokens) + " ,"
  return " ".join(tokens)


def _prediction(rng, golds):
  roll = rng.random()
  if golds and roll < 0.5:
    return rng.choice(golds)  # Any gold answer, not only the first.
  if golds and roll < 0.8:
    return _perturb(rng, rng.choice(golds))
  if roll < 0.9:
    return ""
  return _phrase(rng)


def _dataset(rng, version_2, num_questions):
  qas, predictions = [], {}
  for i in range(num_questions):
    if version_2 and rng.random() < 0.3:
      golds = []
    else:
      golds = [_phrase(rng) for _ in range(rng.randint(1, 5))]
      if version_2 and rng.random() < 0.15:
        golds[rng.randrange(len(golds))] = rng.choice(EMPTY_AFTER_NORMALIZING)
      if rng.random() < 0.3:  # Variants of one answer, as crowd workers give.
        golds.append(_perturb(rng, golds[0]))
    qid = "q%d" % i
    qa = {"id": qid, "question": "?", "answers": [
        {"text": g, "answer_start": 0} for g in golds]}
    if version_2:
      qa["is_impossible"] = not golds
    qas.append(qa)
    if version_2 or rng.random() < 0.9:
      predictions[qid] = _prediction(rng, golds)
  half = len(qas) // 2
  data = [{"title": "t1", "paragraphs": [{"context": "c", "qas": qas[:half]}]},
          {"title": "t2", "paragraphs": [{"context": "c", "qas": qas[half:]}]}]
  return data, predictions


def _assert_same(got, want):
  assert set(got) == set(want), (sorted(got), sorted(want))
  for key, value in want.items():
    assert got[key] == pytest.approx(value, abs=1e-9), (key, got, want)


@pytest.mark.parametrize("seed", range(40))
def test_v1_matches_official_definition(seed):
  rng = random.Random(seed)
  data, predictions = _dataset(rng, False, rng.randint(1, 30))
  _assert_same(ev.evaluate_v1(data, predictions),
               official.v1(data, predictions))


@pytest.mark.parametrize("seed", range(40))
def test_v2_matches_official_definition(seed):
  rng = random.Random(1000 + seed)
  data, predictions = _dataset(rng, True, rng.randint(1, 30))
  _assert_same(ev.evaluate_v2(data, predictions),
               official.v2(data, predictions))
  # No-answer probabilities with ties, in an order unlike the dataset's.
  qids = list(predictions)
  rng.shuffle(qids)
  na_probs = {q: rng.choice([0.0, 0.1, 0.2, 0.5, 0.9, 1.5]) for q in qids}
  for thresh in (0.15, 0.5, 1.0):
    _assert_same(ev.evaluate_v2(data, predictions, na_probs, thresh),
                 official.v2(data, predictions, na_probs, thresh))


def test_every_gold_answer_counts():
  """A prediction equal to the 2nd/3rd gold answer is an exact match."""
  qas = [{"id": "a", "answers": [{"text": "Denver Broncos"},
                                 {"text": "Broncos"}, {"text": "Denver"}]},
         {"id": "b", "answers": [{"text": "1889"}, {"text": "in 1889"}]}]
  data = [{"paragraphs": [{"context": "c", "qas": qas}]}]
  predictions = {"a": "Denver", "b": "in 1889"}
  assert ev.evaluate_v1(data, predictions) == {"exact_match": 100.0,
                                               "f1": 100.0}
  for qa in qas:
    qa["is_impossible"] = False
  result = ev.evaluate_v2(data, predictions)
  assert result["exact"] == result["f1"] == 100.0


def test_v2_missing_predictions_and_no_answer_scores():
  """Beyond the official script (which stops with a KeyError): a question
  without a prediction scores 0 and counts in the totals; one missing from
  the no-answer file has probability 0."""
  qas = [{"id": "q1", "answers": [{"text": "Paris"}], "is_impossible": False},
         {"id": "q2", "answers": [{"text": "blue sky"}],
          "is_impossible": False},
         {"id": "q3", "answers": [], "is_impossible": True}]
  data = [{"paragraphs": [{"context": "c", "qas": qas}]}]
  predictions = {"q1": "Paris", "q3": ""}  # q2 has none.
  result = ev.evaluate_v2(data, predictions, {"q2": 0.0, "q3": 0.2}, 0.5)
  assert result["exact"] == result["f1"] == pytest.approx(200 / 3)
  assert result["total"] == 3
  assert result["HasAns_exact"] == 50.0 and result["NoAns_exact"] == 100.0
  # Walk (ties in file order, q1 appended): q2 skipped, q1 +1, q3 +0.
  assert result["best_exact"] == 100.0
  assert result["best_exact_thresh"] == 0.0
  # Without a no-answer file every probability is 0: no threshold applies.
  assert ev.evaluate_v2(data, predictions, None, 0.5) == ev.evaluate_v2(
      data, predictions)
