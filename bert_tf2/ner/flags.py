"""Flags of run_ner.py: the shared fine-tuning flags, the runner's, and the
NER task's own."""

from absl import flags

from bert_tf2.finetune.settings import settings_with_defaults
from bert_tf2.runner import finetuning_flags


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_ner.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("data_dir", None, "Directory of the CoNLL files.", **fv)
  finetuning_flags.define_finetuning_flags(
      flag_values, max_seq_length_help="Window length in word pieces "
      "([CLS] and [SEP] included); longer sentences are split into "
      "overlapping windows and merged back.",
      output_dir_help="The output directory where the model checkpoints "
      "and results will be written.")
  flags.DEFINE_integer(
      "doc_stride", 64, "Word pieces between the starts of "
      "two windows of a long sentence.", **fv)
  flags.DEFINE_float(
      "classifier_dropout_prob", 0.1, "Dropout rate on the final hidden "
      "states before the tag layer in training (0.1: as the classifier). 0 "
      "turns it off, e.g. for runs that must be reproducible across "
      "replicas: each replica of a multi-worker/multi-device job draws its "
      "own dropout masks.", **fv)
  flags.DEFINE_string("train_file", "train.txt", "Training file in --data_dir.",
                      **fv)
  flags.DEFINE_string("dev_file", "dev.txt", "Dev file in --data_dir.", **fv)
  flags.DEFINE_string(
      "test_file", "test.txt", "Test file in --data_dir (tags "
      "optional: a line may hold the token only).", **fv)
  flags.DEFINE_string(
      "labels_file", None, "One tag per line; default: the "
      "tags of the training file ('O' first, then sorted).", **fv)
  flags.DEFINE_string(
      "export_dir", None, "If set, write a SavedModel here: "
      "'serving_default' takes raw text and returns entity "
      "spans; 'serving_ids' takes ids.", **fv)
  flags.DEFINE_bool(
      "crf", False, "Put a linear-chain CRF on the tag scores: trained on "
      "its negative log-likelihood, predictions by Viterbi decoding over "
      "the words (their first pieces). Variables crf/transitions, "
      "crf/start_transitions, crf/end_transitions.", **fv)
  flags.DEFINE_float(
      "crf_learning_rate_multiplier", 100.0, "With --crf: the CRF's "
      "variables learn at this multiple of --learning_rate (they start at 0 "
      "and need scores of a few units within a short fine-tuning).", **fv)
  flags.DEFINE_enum(
      "crf_constraints", "auto", ["auto", "BIO", "BIOES", "none"],
      "With --crf: forbidden transitions (O -> I-X, start -> I-X; BIOES "
      "also B-X -> O, ...), never decoded and excluded from the loss. auto: "
      "the scheme of the training file (IOB1: none).", **fv)


def default_options(**overrides):
  """run_ner.py's settings with the defaults `define_flags` declares.

  Example:
    >>> default_options(doc_stride=32).doc_stride
    32
  """
  return settings_with_defaults(define_flags, **overrides)
