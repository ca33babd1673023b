"""Golden run of the original run_squad.py functions (test-only).

Usage: python -m tests.golden.squad_golden JOB.json OUT.json

JOB.json is a list of cases:
  {"kind": "features", "data_file", "vocab_file", "do_lower_case",
   "max_seq_length", "doc_stride", "max_query_length", "is_training",
   "version_2"}
  {"kind": "logits", "bert_config_file", "init_checkpoint", "input_ids",
   "input_mask", "segment_ids"}: the original create_model's start/end
   logits for those inputs, restored as the original model_fn does.
  A "features" case with is_training false may list "predictions": each
  {"logits_file" (JSON {unique_id: [start_logits, end_logits]}),
   "n_best_size", "max_answer_length", "null_score_diff_threshold",
   "output_dir"} runs the original write_predictions on its features.
A "features" case with "record_file" also writes the features there with
the original FeatureWriter.
OUT.json is a list with, per case, the features (all InputFeatures fields;
dict keys as strings), the examples and, per prediction, None or the type of
the exception the original raised; prediction files go to output_dir.
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


def run_logits(rs, case):
  tf = original.tf
  modeling = rs.modeling
  graph = tf.Graph()
  with graph.as_default():
    bert_config = modeling.BertConfig.from_json_file(case["bert_config_file"])
    seq = len(case["input_ids"][0])
    ids = tf.placeholder(tf.int32, [None, seq])
    mask = tf.placeholder(tf.int32, [None, seq])
    segs = tf.placeholder(tf.int32, [None, seq])
    start, end = rs.create_model(bert_config, False, ids, mask, segs, False)
    assignment_map, _ = modeling.get_assignment_map_from_checkpoint(
        tf.trainable_variables(), case["init_checkpoint"])
    tf.train.init_from_checkpoint(case["init_checkpoint"], assignment_map)
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      s, e = sess.run([start, end], feed_dict={
          ids: case["input_ids"], mask: case["input_mask"],
          segs: case["segment_ids"]})
  return {"start_logits": s.tolist(), "end_logits": e.tolist(),
          "num_restored": len(assignment_map)}


def run_case(rs, case):
  if case["kind"] == "logits":
    return run_logits(rs, case)
  flags = rs.FLAGS
  flags.version_2_with_negative = case["version_2"]
  flags.verbose_logging = False
  tokenizer = rs.tokenization.FullTokenizer(
      vocab_file=case["vocab_file"], do_lower_case=case["do_lower_case"])
  examples = rs.read_squad_examples(case["data_file"],
                                    is_training=case["is_training"])
  features = []
  writer = None
  if case.get("record_file"):
    writer = rs.FeatureWriter(case["record_file"], case["is_training"])

  def output_fn(feature):
    features.append(feature)
    if writer is not None:
      writer.process_feature(feature)

  rs.convert_examples_to_features(
      examples=examples, tokenizer=tokenizer,
      max_seq_length=case["max_seq_length"], doc_stride=case["doc_stride"],
      max_query_length=case["max_query_length"],
      is_training=case["is_training"], output_fn=output_fn)
  if writer is not None:
    writer.close()
  result = {"examples": _examples_json(examples),
            "features": _features_json(features)}
  result["predictions"] = [
      _write_predictions(rs, case, examples, features, p)
      for p in case.get("predictions", [])]
  return result


def _write_predictions(rs, case, examples, features, p):
  """Runs the original write_predictions; returns the exception type name."""
  rs.FLAGS.null_score_diff_threshold = p["null_score_diff_threshold"]
  with open(p["logits_file"]) as f:
    logits = json.load(f)
  raw = [rs.RawResult(unique_id=int(uid), start_logits=v[0], end_logits=v[1])
         for uid, v in logits.items()]
  out_dir = p["output_dir"]
  os.makedirs(out_dir, exist_ok=True)
  try:
    rs.write_predictions(
        examples, features, raw, p["n_best_size"], p["max_answer_length"],
        case["do_lower_case"], os.path.join(out_dir, "predictions.json"),
        os.path.join(out_dir, "nbest_predictions.json"),
        os.path.join(out_dir, "null_odds.json"))
    return None
  except Exception as e:  # pylint: disable=broad-except
    return type(e).__name__


def main(job_file, out_file):
  rs = original.load("run_squad")
  with open(job_file) as f:
    cases = json.load(f)
  results = [run_case(rs, case) for case in cases]
  with open(out_file, "w") as f:
    json.dump(results, f)


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
