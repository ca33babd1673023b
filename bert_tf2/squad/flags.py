"""Flags of run_squad.py (the original's names and defaults, and the
runner's) and of evaluate_squad.py (`define_evaluate_flags`)."""

from absl import flags


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_squad.py flag on `flag_values`."""
  # Start-up: evaluate_squad.py needs only define_evaluate_flags, and
  # the runner brings in the whole of TensorFlow.
  from bert_tf2.runner import finetuning_flags  # pylint: disable=g-import-not-at-top
  fv = {"flag_values": flag_values}
  finetuning_flags.define_finetuning_flags(
      flag_values, max_seq_length=384, max_seq_length_help="The maximum "
      "total input sequence length after WordPiece tokenization.",
      do_eval=False, output_dir_help="Directory for checkpoints, records "
      "and predictions.")
  flags.DEFINE_string("train_file", None,
                      "SQuAD JSON to train on, e.g. train-v1.1.json.", **fv)
  flags.DEFINE_string("predict_file", None,
                      "SQuAD JSON to predict, e.g. dev-v1.1.json.", **fv)
  flags.DEFINE_bool(
      "trim_padding", False, "Predict each batch at its longest sequence "
      "(rounded up to a bucket) instead of --max_seq_length: less work, "
      "same logits at real positions; but the original ranks padding "
      "positions in its n-best search, so n-best lists (rarely the answer) "
      "can differ. Training always runs at --max_seq_length: its loss counts "
      "padding positions.", **fv)
  flags.DEFINE_integer("doc_stride", 128,
                       "Stride between the windows of a long context.", **fv)
  flags.DEFINE_integer("max_query_length", 64,
                       "Questions are cut to this many tokens.", **fv)
  flags.DEFINE_integer("n_best_size", 20,
                       "Candidates per question in nbest_predictions.json.",
                       **fv)
  flags.DEFINE_integer("max_answer_length", 30, "Longest answer, in tokens.",
                       **fv)
  flags.DEFINE_string(
      "export_dir", None, "If set, write a SavedModel here with signature "
      "'serving_default' (raw strings question, context [batch] -> answer, "
      "score, no_answer, ...) of the best checkpoint "
      "(--keep_best_checkpoint), else the latest.", **fv)
  flags.DEFINE_bool("verbose_logging", False,
                    "Log every answer-alignment warning of post-processing.",
                    **fv)
  flags.DEFINE_bool("version_2_with_negative", False,
                    "SQuAD 2.0: some questions have no answer.", **fv)
  flags.DEFINE_float(
      "null_score_diff_threshold", 0.0,
      "Predict no answer when null score - best non-null score "
      "exceeds this.", **fv)


def define_evaluate_flags(flag_values=flags.FLAGS):
  """Defines every evaluate_squad.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("data_file", None, "The SQuAD JSON with gold answers.",
                      **fv)
  flags.DEFINE_string("pred_file", None, "predictions.json to score.", **fv)
  flags.DEFINE_string("na_prob_file", None,
                      "Optional null_odds.json (v2.0): no-answer scores.", **fv)
  flags.DEFINE_float("na_prob_thresh", 1.0,
                     "v2.0: above this no-answer score a prediction counts as "
                     "no answer.", **fv)
  flags.DEFINE_enum("version", "auto", ["auto", "1.1", "2.0"],
                    "Metric definitions; auto: 2.0 if any question has "
                    "is_impossible.", **fv)
  flags.DEFINE_string("out_file", None, "Also write the JSON here.", **fv)


def default_options(**overrides):
  """run_squad.py's settings with the flags' defaults.

  Example:
    >>> default_options(doc_stride=64).doc_stride
    64
  """
  # Start-up: bert_tf2.finetune loads TensorFlow (as the runner, above).
  from bert_tf2.finetune.settings import settings_with_defaults  # pylint: disable=g-import-not-at-top
  return settings_with_defaults(define_flags, **overrides)
