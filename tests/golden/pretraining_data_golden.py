"""Golden runs of the original create_pretraining_data (test-only).

    python -m tests.golden.pretraining_data_golden cases.json

`cases.json` is a list of cases: {"input_files": [...], "output_files":
[...], "vocab_file", "do_lower_case", "max_seq_length",
"max_predictions_per_seq", "random_seed", "dupe_factor", "masked_lm_prob",
"short_seq_prob"}. For each case this calls the original module's
`create_training_instances` and `write_instance_to_example_files` exactly as
its `main` does (input globs expanded with tf.gfile.Glob, a fresh
`random.Random(random_seed)`), so one subprocess serves every case.
"""

import json
import random
import sys
import time

from tests.golden import original


def run_case(cpd, tokenization, case):
  tf = cpd.tf
  tokenizer = tokenization.FullTokenizer(
      vocab_file=case["vocab_file"], do_lower_case=case["do_lower_case"])
  input_files = []
  for pattern in case["input_files"]:
    input_files.extend(tf.gfile.Glob(pattern))
  rng = random.Random(case["random_seed"])
  instances = cpd.create_training_instances(
      input_files, tokenizer, case["max_seq_length"], case["dupe_factor"],
      case["short_seq_prob"], case["masked_lm_prob"],
      case["max_predictions_per_seq"], rng)
  cpd.write_instance_to_example_files(
      instances, tokenizer, case["max_seq_length"],
      case["max_predictions_per_seq"], case["output_files"])
  return len(instances)


def main(argv):
  with open(argv[1]) as f:
    cases = json.load(f)
  cpd = original.load("create_pretraining_data")
  tokenization = original.load("tokenization")
  cpd.tf.logging.set_verbosity(cpd.tf.logging.WARN)
  counts = []
  for case in cases:
    start = time.time()
    counts.append(run_case(cpd, tokenization, case))
    sys.stderr.write("case %d: %d instances, %.1fs\n" % (
        len(counts), counts[-1], time.time() - start))
  print(json.dumps(counts))


if __name__ == "__main__":
  main(sys.argv)
