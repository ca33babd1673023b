"""Golden run of the original run_squad.py functions (test-only).

Usage: python -m tests.golden.squad_golden JOB.json OUT.json

JOB.json is a list of cases:
  {"kind": "features", "data_file", "vocab_file", "do_lower_case",
   "max_seq_length", "doc_stride", "max_query_length", "is_training",
   "version_2"}
  {"kind": "predict", ... the fields above with is_training false, plus
   "logits_file" (JSON {unique_id: [start_logits, end_logits]}),
   "n_best_size", "max_answer_length", "null_score_diff_threshold",
   "output_dir"}
OUT.json is a list with, per case, the features (all InputFeatures fields;
dict keys as strings) and the examples, or for "predict" whether the
original raised (its exception type); prediction files go to output_dir.
"""

import json
import os
import sys

from tests.golden import original


def _features_json(features):
  out = []
  for f in features:
    out.append({
        "unique_id": f.unique_id, "example_index": f.example_index,
        "doc_span_index": f.doc_span_index, "tokens": f.tokens,
        "token_to_orig_map": {str(k): v for k, v in
                              f.token_to_orig_map.items()},
        "token_is_max_context": {str(k): v for k, v in
                                 f.token_is_max_context.items()},
        "input_ids": f.input_ids, "input_mask": f.input_mask,
        "segment_ids": f.segment_ids, "start_position": f.start_position,
        "end_position": f.end_position, "is_impossible": f.is_impossible})
  return out


def _examples_json(examples):
  return [{"qas_id": e.qas_id, "question_text": e.question_text,
           "doc_tokens": e.doc_tokens, "orig_answer_text": e.orig_answer_text,
           "start_position": e.start_position, "end_position": e.end_position,
           "is_impossible": e.is_impossible} for e in examples]


def run_case(rs, case):
  flags = rs.FLAGS
  flags.version_2_with_negative = case["version_2"]
  flags.null_score_diff_threshold = case.get("null_score_diff_threshold", 0.0)
  flags.verbose_logging = False
  tokenizer = rs.tokenization.FullTokenizer(
      vocab_file=case["vocab_file"], do_lower_case=case["do_lower_case"])
  examples = rs.read_squad_examples(case["data_file"],
                                    is_training=case["is_training"])
  features = []
  rs.convert_examples_to_features(
      examples=examples, tokenizer=tokenizer,
      max_seq_length=case["max_seq_length"], doc_stride=case["doc_stride"],
      max_query_length=case["max_query_length"],
      is_training=case["is_training"], output_fn=features.append)
  result = {"examples": _examples_json(examples),
            "features": _features_json(features)}
  if case["kind"] == "predict":
    with open(case["logits_file"]) as f:
      logits = json.load(f)
    raw = [rs.RawResult(unique_id=int(uid), start_logits=v[0],
                        end_logits=v[1]) for uid, v in logits.items()]
    out_dir = case["output_dir"]
    os.makedirs(out_dir, exist_ok=True)
    try:
      rs.write_predictions(
          examples, features, raw, case["n_best_size"],
          case["max_answer_length"], case["do_lower_case"],
          os.path.join(out_dir, "predictions.json"),
          os.path.join(out_dir, "nbest_predictions.json"),
          os.path.join(out_dir, "null_odds.json"))
      result["crashed"] = None
    except Exception as e:  # pylint: disable=broad-except
      result["crashed"] = type(e).__name__
  return result


def main(job_file, out_file):
  rs = original.load("run_squad")
  with open(job_file) as f:
    cases = json.load(f)
  results = [run_case(rs, case) for case in cases]
  with open(out_file, "w") as f:
    json.dump(results, f)


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
