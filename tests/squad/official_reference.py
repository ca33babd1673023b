"""The official SQuAD metric definitions, restated independently. Test-only.

Written from the definitions of the official evaluation scripts
(evaluate-v1.1.py and evaluate-v2.0.py of the SQuAD site), deliberately in a
different shape from `bert_tf2.squad.evaluate` (regex punctuation removal,
explicit loops) so that a bug shared by both is unlikely. What the official
scripts do and this restates:
  * normalize: lower case, drop string.punctuation characters, replace the
    whole words a/an/the by spaces, collapse whitespace;
  * v1.1: EM and F1 take the max over ALL gold answers; a question without
    a prediction scores 0 but counts in the total;
  * v2.0: gold answers that normalize to "" are dropped (none left: the
    gold is [""]); F1 with an empty side is 1 iff both are empty; a question
    "has an answer" iff its answers list is non-empty (before dropping);
    totals count the predicted questions; with no-answer probabilities a
    prediction above the threshold is scored as "no answer", and the best
    threshold walks the questions in ascending probability order (stable,
    in the probability file's order).
"""

import collections
import re
import string

_PUNCT_RE = re.compile("[%s]" % re.escape(string.punctuation))
_ARTICLE_RE = re.compile(r"\b(a|an|the)\b")


def normalize(text):
  text = _PUNCT_RE.sub("", text.lower())
  text = _ARTICLE_RE.sub(" ", text)
  return " ".join(text.split())


def _overlap_f1(pred_tokens, gold_tokens):
  common = 0
  gold_left = collections.Counter(gold_tokens)
  for token in pred_tokens:
    if gold_left[token] > 0:
      gold_left[token] -= 1
      common += 1
  if not common:
    return 0.0
  precision = common / len(pred_tokens)
  recall = common / len(gold_tokens)
  return 2 * precision * recall / (precision + recall)


def _questions(data):
  for article in data:
    for paragraph in article["paragraphs"]:
      for qa in paragraph["qas"]:
        yield qa


def v1(data, predictions):
  exact = f1 = 0.0
  total = 0
  for qa in _questions(data):
    total += 1
    if qa["id"] not in predictions:
      continue
    pred = normalize(predictions[qa["id"]])
    golds = [normalize(a["text"]) for a in qa["answers"]]
    exact += max(float(pred == g) for g in golds)
    f1 += max(_overlap_f1(pred.split(), g.split()) for g in golds)
  return {"exact_match": 100.0 * exact / total, "f1": 100.0 * f1 / total}


def _v2_f1(pred, gold):
  pred_tokens = normalize(pred).split() if pred else []
  gold_tokens = normalize(gold).split() if gold else []
  if not pred_tokens or not gold_tokens:
    return float(pred_tokens == gold_tokens)
  return _overlap_f1(pred_tokens, gold_tokens)


def _best(predictions, scores, na_probs, has_answer):
  score = best = sum(1 for q in has_answer if not has_answer[q])
  best_thresh = 0.0
  for qid in sorted(na_probs, key=lambda q: na_probs[q]):
    if qid not in scores:
      continue
    if has_answer[qid]:
      score += scores[qid]
    elif predictions[qid]:
      score -= 1
    if score > best:
      best, best_thresh = score, na_probs[qid]
  return 100.0 * best / len(scores), best_thresh


def v2(data, predictions, na_probs=None, na_prob_thresh=1.0):
  """Every question must have a prediction (the official script needs it)."""
  has_answer, exact, f1 = {}, {}, {}
  for qa in _questions(data):
    qid = qa["id"]
    has_answer[qid] = len(qa["answers"]) > 0
    golds = [a["text"] for a in qa["answers"] if normalize(a["text"])] or [""]
    pred = predictions[qid]
    exact[qid] = max(float(normalize(g) == normalize(pred)) for g in golds)
    f1[qid] = max(_v2_f1(pred, g) for g in golds)
  probs = na_probs if na_probs is not None else {q: 0.0 for q in predictions}
  exact_t, f1_t = {}, {}
  for qid in exact:
    no_answer = probs[qid] > na_prob_thresh
    exact_t[qid] = float(not has_answer[qid]) if no_answer else exact[qid]
    f1_t[qid] = float(not has_answer[qid]) if no_answer else f1[qid]
  out = {"exact": 100.0 * sum(exact_t.values()) / len(exact_t),
         "f1": 100.0 * sum(f1_t.values()) / len(f1_t), "total": len(exact_t)}
  for name, want in (("HasAns", True), ("NoAns", False)):
    qids = [q for q in has_answer if has_answer[q] == want]
    if qids:
      out[name + "_exact"] = 100.0 * sum(exact_t[q] for q in qids) / len(qids)
      out[name + "_f1"] = 100.0 * sum(f1_t[q] for q in qids) / len(qids)
      out[name + "_total"] = len(qids)
  if na_probs is not None:
    out["best_exact"], out["best_exact_thresh"] = _best(
        predictions, exact, na_probs, has_answer)
    out["best_f1"], out["best_f1_thresh"] = _best(
        predictions, f1, na_probs, has_answer)
  return out
