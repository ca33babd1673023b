"""Model logits -> answers: n-best decoding and the prediction files.

Every window's top `n_best_size` start and end logits are paired; valid
spans (in the context, start in its max-context window, start <= end, at
most `max_answer_length`) are ranked by start_logit + end_logit, mapped
back with `get_final_text` and de-duplicated by text. For SQuAD 2.0 the
prediction is "" when null_score - best_non_null_score >
null_score_diff_threshold.

Outputs (the original's formats, `json.dumps(obj, indent=4) + "\\n"`):
  predictions.json       {qas_id: answer text}
  nbest_predictions.json {qas_id: [{"text", "probability", "start_logit",
                                    "end_logit"}, ...]}
  null_odds.json (v2)    {qas_id: null_score - best_non_null_score}

Deviation (a fix): where the original crashes (SQuAD 2.0 without a valid
non-null span; an example without windows) the prediction is "" (v2,
null_odds NO_CANDIDATE_SCORE_DIFF) / "empty" (v1).
"""

import collections
import json
import math

from absl import logging

from bert_tf2.common import atomic_write_text
from bert_tf2.common import InputError
from bert_tf2.squad.final_text import get_final_text

RawResult = collections.namedtuple("RawResult",
                                   ["unique_id", "start_logits", "end_logits"])

NO_CANDIDATE_SCORE_DIFF = 1e6

_Prelim = collections.namedtuple(
    "PrelimPrediction",
    ["feature_index", "start_index", "end_index", "start_logit", "end_logit"])
_Nbest = collections.namedtuple("NbestPrediction",
                                ["text", "start_logit", "end_logit"])


def get_best_indexes(logits, n_best_size):
  """Indexes of the `n_best_size` largest logits, largest first (stable)."""
  order = sorted(range(len(logits)), key=lambda i: logits[i], reverse=True)
  return order[:n_best_size]


def compute_softmax(scores):
  """Softmax of a list of floats, as a list (empty for no scores)."""
  if not scores:
    return []
  max_score = max(scores)
  exp_scores = [math.exp(s - max_score) for s in scores]
  total = sum(exp_scores)
  return [e / total for e in exp_scores]


def _span_text(example, feature, start_index, end_index, do_lower_case,
               verbose_logging):
  """Final answer text of tokens start_index..end_index of a window."""
  tok_tokens = feature.tokens[start_index:(end_index + 1)]
  orig_start = feature.token_to_orig_map[start_index]
  orig_end = feature.token_to_orig_map[end_index]
  orig_text = " ".join(example.doc_tokens[orig_start:(orig_end + 1)])
  tok_text = " ".join(tok_tokens).replace(" ##", "").replace("##", "")
  tok_text = " ".join(tok_text.strip().split())
  return get_final_text(tok_text, orig_text, do_lower_case, verbose_logging)


def _prelim_predictions(features, results, n_best_size, max_answer_length,
                        version_2_with_negative):
  """Valid candidate spans of one example, best first; and the null score."""
  prelim = []
  score_null = 1000000  # Above any real score; the minimum is kept.
  null_feature_index = 0
  null_start_logit = 0
  null_end_logit = 0
  for feature_index, (feature, result) in enumerate(zip(features, results)):
    start_indexes = get_best_indexes(result.start_logits, n_best_size)
    end_indexes = get_best_indexes(result.end_logits, n_best_size)
    if version_2_with_negative:
      feature_null_score = result.start_logits[0] + result.end_logits[0]
      if feature_null_score < score_null:
        score_null = feature_null_score
        null_feature_index = feature_index
        null_start_logit = result.start_logits[0]
        null_end_logit = result.end_logits[0]
    num_tokens = len(feature.tokens)
    for start_index in start_indexes:
      for end_index in end_indexes:
        if start_index >= num_tokens or end_index >= num_tokens:
          continue
        if (start_index not in feature.token_to_orig_map or
            end_index not in feature.token_to_orig_map):
          continue
        if not feature.token_is_max_context.get(start_index, False):
          continue
        if end_index < start_index:
          continue
        if end_index - start_index + 1 > max_answer_length:
          continue
        prelim.append(_Prelim(feature_index, start_index, end_index,
                              result.start_logits[start_index],
                              result.end_logits[end_index]))
  if version_2_with_negative:
    prelim.append(_Prelim(null_feature_index, 0, 0, null_start_logit,
                          null_end_logit))
  prelim = sorted(prelim, key=lambda p: p.start_logit + p.end_logit,
                  reverse=True)
  return prelim, score_null, null_start_logit, null_end_logit


def predict_example(example, features, results, n_best_size,
                    max_answer_length, do_lower_case,
                    version_2_with_negative=False,
                    null_score_diff_threshold=0.0, verbose_logging=False):
  """Decodes one example (its InputFeatures in window order, one RawResult
  each): (prediction text, nbest list of OrderedDicts, score_diff or None
  for v1)."""
  prelim, score_null, null_start, null_end = _prelim_predictions(
      features, results, n_best_size, max_answer_length,
      version_2_with_negative)
  seen = set()
  nbest = []
  for pred in prelim:
    if len(nbest) >= n_best_size:
      break
    if pred.start_index > 0:
      text = _span_text(example, features[pred.feature_index],
                        pred.start_index, pred.end_index, do_lower_case,
                        verbose_logging)
      if text in seen:
        continue
    else:
      text = ""
    seen.add(text)
    nbest.append(_Nbest(text, pred.start_logit, pred.end_logit))

  if version_2_with_negative and "" not in seen:
    nbest.append(_Nbest("", null_start, null_end))
  if not nbest:
    # No valid span at all (v1): a placeholder answer, as the original.
    nbest.append(_Nbest("empty", 0.0, 0.0))

  probs = compute_softmax([e.start_logit + e.end_logit for e in nbest])
  nbest_json = []
  for entry, prob in zip(nbest, probs):
    output = collections.OrderedDict()
    output["text"] = entry.text
    output["probability"] = prob
    output["start_logit"] = entry.start_logit
    output["end_logit"] = entry.end_logit
    nbest_json.append(output)

  if not version_2_with_negative:
    return nbest_json[0]["text"], nbest_json, None
  best_non_null = next((e for e in nbest if e.text), None)
  if best_non_null is None:
    return "", nbest_json, NO_CANDIDATE_SCORE_DIFF
  score_diff = score_null - best_non_null.start_logit - best_non_null.end_logit
  if score_diff > null_score_diff_threshold:
    return "", nbest_json, score_diff
  return best_non_null.text, nbest_json, score_diff


def compute_predictions(all_examples, all_features, all_results, n_best_size,
                        max_answer_length, do_lower_case,
                        version_2_with_negative=False,
                        null_score_diff_threshold=0.0, verbose_logging=False):
  """Decodes all examples.

  Returns:
    (all_predictions, all_nbest_json, scores_diff_json): OrderedDicts keyed
    by qas_id in example order (scores_diff_json empty for v1).

  Raises:
    InputError: a feature has no result (e.g. predictions from another file).
  """
  example_index_to_features = collections.defaultdict(list)
  for feature in all_features:
    example_index_to_features[feature.example_index].append(feature)
  unique_id_to_result = {r.unique_id: r for r in all_results}

  all_predictions = collections.OrderedDict()
  all_nbest_json = collections.OrderedDict()
  scores_diff_json = collections.OrderedDict()
  for example_index, example in enumerate(all_examples):
    features = example_index_to_features[example_index]
    results = []
    for feature in features:
      if feature.unique_id not in unique_id_to_result:
        raise InputError("no model output for feature %d (question %r)" % (
            feature.unique_id, example.qas_id))
      results.append(unique_id_to_result[feature.unique_id])
    text, nbest_json, score_diff = predict_example(
        example, features, results, n_best_size, max_answer_length,
        do_lower_case, version_2_with_negative, null_score_diff_threshold,
        verbose_logging)
    all_predictions[example.qas_id] = text
    all_nbest_json[example.qas_id] = nbest_json
    if version_2_with_negative:
      scores_diff_json[example.qas_id] = score_diff
  return all_predictions, all_nbest_json, scores_diff_json


def _dump(obj):
  return json.dumps(obj, indent=4) + "\n"


def write_predictions(all_examples, all_features, all_results, n_best_size,
                      max_answer_length, do_lower_case, output_prediction_file,
                      output_nbest_file, output_null_log_odds_file,
                      version_2_with_negative=False,
                      null_score_diff_threshold=0.0, verbose_logging=False):
  """Decodes all examples and writes the prediction files atomically.

  Args:
    all_examples: list of SquadExample.
    all_features: list of InputFeatures of those examples.
    all_results: iterable of RawResult (python float logits per position).
    output_prediction_file, output_nbest_file, output_null_log_odds_file:
      paths (the last is written only for v2).
    (the others as run_squad.py's flags)

  Returns:
    OrderedDict {qas_id: prediction text}.
  """
  logging.info("Writing predictions to: %s", output_prediction_file)
  logging.info("Writing nbest to: %s", output_nbest_file)
  predictions, nbest, scores_diff = compute_predictions(
      all_examples, all_features, all_results, n_best_size,
      max_answer_length, do_lower_case, version_2_with_negative,
      null_score_diff_threshold, verbose_logging)
  atomic_write_text(output_prediction_file, _dump(predictions))
  atomic_write_text(output_nbest_file, _dump(nbest))
  if version_2_with_negative:
    atomic_write_text(output_null_log_odds_file, _dump(scores_diff))
  return predictions
