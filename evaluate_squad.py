"""SQuAD exact match / F1 of a predictions.json (v1.1 and v2.0 definitions).

  python evaluate_squad.py --data_file=dev-v2.0.json \
    --pred_file=/tmp/out/predictions.json [--na_prob_file=null_odds.json]

Prints a JSON object: {"exact_match", "f1"} for SQuAD 1.1 files, the v2.0
fields (exact, f1, total, HasAns_*, NoAns_*, best_* with --na_prob_file) for
files with "is_impossible". Questions without a prediction score 0.
"""

import json

from absl import flags

from common import cli
from squad import evaluate as squad_eval

FLAGS = flags.FLAGS

flags.DEFINE_string("data_file", None, "The SQuAD JSON with gold answers.")
flags.DEFINE_string("pred_file", None, "predictions.json to score.")
flags.DEFINE_string("na_prob_file", None,
                    "Optional null_odds.json (v2.0): no-answer scores.")
flags.DEFINE_float("na_prob_thresh", 1.0,
                   "v2.0: above this no-answer score a prediction counts as "
                   "no answer.")
flags.DEFINE_enum("version", "auto", ["auto", "1.1", "2.0"],
                  "Metric definitions; auto: 2.0 if any question has "
                  "is_impossible.")
flags.DEFINE_string("out_file", None, "Also write the JSON here.")


def main(_):
  result = squad_eval.evaluate_files(FLAGS.data_file, FLAGS.pred_file,
                                     FLAGS.na_prob_file, FLAGS.na_prob_thresh,
                                     FLAGS.version)
  # As the official scripts print: v1.1 on one line, v2.0 indented.
  text = json.dumps(result, indent=2 if "exact" in result else None)
  print(text)
  if FLAGS.out_file:
    from common import atomic_write_text  # pylint: disable=g-import-not-at-top
    atomic_write_text(FLAGS.out_file, text + "\n")


if __name__ == "__main__":
  flags.mark_flag_as_required("data_file")
  flags.mark_flag_as_required("pred_file")
  cli.run(main)
