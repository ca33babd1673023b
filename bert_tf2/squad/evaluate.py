"""SQuAD exact match and F1 (v1.1 and v2.0 definitions of the official scripts).

Each question takes its maximum over the gold answers; totals are
averages x 100. SQuAD 2.0: gold answers that normalize to "" are dropped
(none left: the gold answer ""); F1 of an empty token list is 1 if both
sides are empty, else 0; with na_probs, a prediction whose no-answer
probability exceeds `na_prob_thresh` counts as "", and the best thresholds
are searched.

Example:
  >>> exact_match_score("The Eiffel Tower!", "eiffel tower")
  1
  >>> round(f1_score("in the year 1889", "1889"), 4)
  0.5
"""

import collections
import json
import re
import string

from bert_tf2.common import InputError

_PUNCT = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def normalize_answer(s):
  """Lower-cases, drops punctuation and articles, collapses whitespace."""
  s = s.lower()
  s = "".join(ch for ch in s if ch not in _PUNCT)
  s = _ARTICLES.sub(" ", s)
  return " ".join(s.split())


def exact_match_score(prediction, ground_truth):
  """1 if the normalized texts are equal, else 0."""
  return int(normalize_answer(prediction) == normalize_answer(ground_truth))


def f1_score(prediction, ground_truth, version_2=False):
  """Token-overlap F1 of normalized texts (v2: empty vs empty scores 1)."""
  pred_toks = normalize_answer(prediction).split()
  gold_toks = normalize_answer(ground_truth).split()
  if version_2 and (not pred_toks or not gold_toks):
    return float(pred_toks == gold_toks)
  common = collections.Counter(pred_toks) & collections.Counter(gold_toks)
  num_same = sum(common.values())
  if num_same == 0:
    return 0.0
  precision = num_same / len(pred_toks)
  recall = num_same / len(gold_toks)
  return 2 * precision * recall / (precision + recall)


def _questions(dataset):
  """Yields (qas_id, qa dict) of a SQuAD "data" list."""
  for article in dataset:
    for paragraph in article["paragraphs"]:
      for qa in paragraph["qas"]:
        yield qa["id"], qa


def is_version_2(dataset):
  """True when any question carries SQuAD 2.0's "is_impossible" field."""
  return any("is_impossible" in qa for _, qa in _questions(dataset))


def evaluate_v1(dataset, predictions):
  """SQuAD 1.1 metrics.

  Args:
    dataset: the "data" list of a SQuAD file.
    predictions: dict {qas_id: text}; missing questions score 0.

  Returns:
    dict {"exact_match": float, "f1": float} in percent.
  """
  exact = f1 = total = 0
  for qas_id, qa in _questions(dataset):
    total += 1
    if qas_id not in predictions:
      continue
    golds = [a["text"] for a in qa["answers"]]
    if not golds:
      raise InputError("question %r has no gold answer; SQuAD 1.1 scoring "
                       "needs one (use the 2.0 definitions)" % qas_id)
    pred = predictions[qas_id]
    exact += max(exact_match_score(pred, g) for g in golds)
    f1 += max(f1_score(pred, g) for g in golds)
  total = max(total, 1)
  return {"exact_match": 100.0 * exact / total, "f1": 100.0 * f1 / total}


def _v2_raw_scores(dataset, predictions):
  exact, f1, has_ans = {}, {}, {}
  for qas_id, qa in _questions(dataset):
    answers = qa.get("answers", [])
    # As the official script: answered iff the answers list is non-empty,
    # even when every answer normalizes to "" (it then scores against "").
    has_ans[qas_id] = bool(answers)
    golds = [a["text"] for a in answers if normalize_answer(a["text"])]
    if not golds:
      golds = [""]
    if qas_id not in predictions:
      continue
    pred = predictions[qas_id]
    exact[qas_id] = max(exact_match_score(pred, g) for g in golds)
    f1[qas_id] = max(f1_score(pred, g, version_2=True) for g in golds)
  return exact, f1, has_ans


def _apply_na_thresh(scores, na_probs, has_ans, na_prob_thresh):
  return {q: float(not has_ans[q]) if na_probs[q] > na_prob_thresh else score
          for q, score in scores.items()}


def _averages(exact, f1, qids):
  total = len(qids)
  if not total:
    return None
  return collections.OrderedDict([
      ("exact", 100.0 * sum(exact.get(q, 0) for q in qids) / total),
      ("f1", 100.0 * sum(f1.get(q, 0) for q in qids) / total),
      ("total", total)])


def _best_thresh(predictions, scores, na_probs, has_ans):
  """Best total score (percent) and threshold over the na_prob ordering."""
  num_no_ans = sum(1 for q in has_ans if not has_ans[q])
  cur_score = best_score = num_no_ans
  best_thresh = 0.0
  for qas_id in sorted(na_probs, key=lambda q: na_probs[q]):
    if qas_id not in scores:
      continue
    if has_ans[qas_id]:
      diff = scores[qas_id]
    else:
      diff = -1 if predictions[qas_id] else 0
    cur_score += diff
    if cur_score > best_score:
      best_score = cur_score
      best_thresh = na_probs[qas_id]
  return 100.0 * best_score / len(scores), best_thresh


def evaluate_v2(dataset, predictions, na_probs=None, na_prob_thresh=1.0):
  """SQuAD 2.0 metrics.

  Args:
    dataset: the "data" list of a SQuAD file.
    predictions: dict {qas_id: text} ("" = no answer).
    na_probs: optional dict {qas_id: no-answer score}; default all 0.
    na_prob_thresh: float, above it a prediction counts as no answer.

  Returns:
    OrderedDict with exact, f1, total, HasAns_*/NoAns_* and, with na_probs,
    best_exact, best_exact_thresh, best_f1, best_f1_thresh.
  """
  given_na_probs = na_probs is not None
  if na_probs is None:
    na_probs = {q: 0.0 for q, _ in _questions(dataset)}
  exact_raw, f1_raw, has_ans = _v2_raw_scores(dataset, predictions)
  # The file's order breaks ties in the best-threshold walk (as the
  # official script's stable sort); questions it lacks score 0.
  na_probs = dict(na_probs)
  for q in has_ans:
    na_probs.setdefault(q, 0.0)
  exact = _apply_na_thresh(exact_raw, na_probs, has_ans, na_prob_thresh)
  f1 = _apply_na_thresh(f1_raw, na_probs, has_ans, na_prob_thresh)
  all_qids = list(has_ans)
  out = _averages(exact, f1, all_qids)
  for prefix, qids in (("HasAns", [q for q in all_qids if has_ans[q]]),
                       ("NoAns", [q for q in all_qids if not has_ans[q]])):
    sub = _averages(exact, f1, qids)
    if sub:
      for key, value in sub.items():
        out["%s_%s" % (prefix, key)] = value
  if given_na_probs and exact_raw:
    preds = {q: predictions[q] for q in exact_raw}
    out["best_exact"], out["best_exact_thresh"] = _best_thresh(
        preds, exact_raw, na_probs, has_ans)
    out["best_f1"], out["best_f1_thresh"] = _best_thresh(
        preds, f1_raw, na_probs, has_ans)
  return out


def questions_without_gold(dataset):
  """Ids of the questions nothing can be scored against: no answer and not
  SQuAD 2.0's "is_impossible"."""
  return [qas_id for qas_id, qa in _questions(dataset)
          if not qa.get("answers") and not qa.get("is_impossible")]


def evaluate_dataset(dataset, predictions, na_probs=None):
  """evaluate_squad.py's metrics with --version=auto: the 2.0 definitions
  (with `na_probs`: also the best thresholds) iff any question has
  "is_impossible", else 1.1's (na_probs unused)."""
  if is_version_2(dataset):
    return evaluate_v2(dataset, predictions, na_probs)
  return evaluate_v1(dataset, predictions)


def _load(path, flag, what):
  try:
    with open(path, encoding="utf-8") as f:
      return json.load(f)
  except FileNotFoundError:
    raise InputError("--%s=%s: file not found" % (flag, path))
  except (OSError, ValueError) as e:
    raise InputError("--%s=%s: cannot read %s: %s" % (flag, path, what, e))


def evaluate_files(data_file, pred_file, na_prob_file=None,
                   na_prob_thresh=1.0, version="auto"):
  """Scores a predictions file against a SQuAD file.

  Args as evaluate_squad.py's flags; returns `evaluate_v1` /
  `evaluate_v2`'s dict; raises InputError for unreadable or malformed
  files.
  """
  dataset = _load(data_file, "data_file", "SQuAD JSON")
  if not isinstance(dataset, dict) or not isinstance(dataset.get("data"),
                                                     list):
    raise InputError("--data_file=%s: not a SQuAD file (no 'data' list)"
                     % data_file)
  data = dataset["data"]
  predictions = _load(pred_file, "pred_file", "predictions JSON")
  if not isinstance(predictions, dict) or not all(
      isinstance(v, str) for v in predictions.values()):
    raise InputError("--pred_file=%s: expected a JSON object {question id: "
                     "answer text}" % pred_file)
  na_probs = None
  if na_prob_file:
    na_probs = _load(na_prob_file, "na_prob_file", "no-answer scores")
    if not isinstance(na_probs, dict) or not all(
        isinstance(v, (int, float)) for v in na_probs.values()):
      raise InputError("--na_prob_file=%s: expected a JSON object {question "
                       "id: number}" % na_prob_file)
  try:
    use_v2 = (version == "2.0" or
              (version == "auto" and is_version_2(data)))
    if use_v2:
      return evaluate_v2(data, predictions, na_probs, na_prob_thresh)
    if na_probs is not None:
      raise InputError("--na_prob_file is only used with SQuAD 2.0 data")
    return evaluate_v1(data, predictions)
  except (KeyError, TypeError) as e:
    raise InputError("--data_file=%s: malformed SQuAD entry (%r)" % (
        data_file, e))
  except InputError as e:
    if str(e).startswith("--"):
      raise
    raise InputError("--data_file=%s: %s" % (data_file, e))
