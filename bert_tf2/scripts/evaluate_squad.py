"""SQuAD exact match / F1 of a predictions.json (v1.1 and v2.0 definitions).

  python evaluate_squad.py --data_file=dev-v2.0.json \
    --pred_file=/tmp/out/predictions.json [--na_prob_file=null_odds.json]
  python evaluate_squad.py dev-v1.1.json /tmp/out/predictions.json  # official

Prints a JSON object: {"exact_match", "f1"} for SQuAD 1.1 files, the v2.0
fields (exact, f1, total, HasAns_*, NoAns_*, best_* with --na_prob_file) for
files with "is_impossible". Questions without a prediction score 0.
"""

import json

from absl import flags

from bert_tf2.common import atomic_write_text
from bert_tf2.common import cli
from bert_tf2.squad import flags as squad_flags
from bert_tf2.common import InputError
from bert_tf2.squad import evaluate as squad_eval
from tokenization import flags as tokenization_flags

FLAGS = flags.FLAGS

squad_flags.define_evaluate_flags()


def _files(argv):
  """(data_file, pred_file) from the flags or, as the official scripts take
  them, from two positional arguments."""
  positional = argv[1:]
  if positional and (FLAGS.data_file or FLAGS.pred_file or
                     len(positional) != 2):
    raise InputError("expected either --data_file and --pred_file or two "
                     "arguments DATA_FILE PRED_FILE, got extra arguments %s"
                     % " ".join(positional))
  data_file, pred_file = positional or (FLAGS.data_file, FLAGS.pred_file)
  for flag, path in (("data_file", data_file), ("pred_file", pred_file)):
    if not path:
      raise InputError("--%s is required (or pass DATA_FILE PRED_FILE)"
                       % flag)
    cli.require_file(flag, path)
  return data_file, pred_file


def main(argv):
  tokenization_flags.refuse_preserve_unused_tokens("evaluate_squad.py")
  data_file, pred_file = _files(argv)
  if FLAGS.out_file:
    cli.require_output_file("out_file", FLAGS.out_file)
  result = squad_eval.evaluate_files(data_file, pred_file,
                                     FLAGS.na_prob_file, FLAGS.na_prob_thresh,
                                     FLAGS.version)
  # As the official scripts print: v1.1 on one line, v2.0 indented.
  text = json.dumps(result, indent=2 if "exact" in result else None)
  print(text)
  if FLAGS.out_file:
    atomic_write_text(FLAGS.out_file, text + "\n")


def run():
  """Console entry point: `bert-evaluate-squad ...`, the same flags as `python evaluate_squad.py ...`."""
  cli.run(main)


if __name__ == "__main__":
  run()
