"""Flags of run_classifier.py: the original's (same names and defaults),
the runner's and the classifier's own."""

from absl import flags

from bert_tf2.runner import finetuning_flags


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_classifier.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string(
      "data_dir", None, "The input data dir. Should contain "
      "the .tsv files (or other data files) for the task.", **fv)
  flags.DEFINE_string("task_name", None, "The name of the task to train.", **fv)
  finetuning_flags.define_finetuning_flags(flag_values)

  # Beyond the original.
  flags.DEFINE_float(
      "classifier_dropout_prob", 0.1, "Dropout rate on the pooled output "
      "before the output layer in training (the original hard-codes 0.1). 0 "
      "turns it off, e.g. for runs that must be reproducible across "
      "replicas: each replica of a multi-worker/multi-device job draws its "
      "own dropout masks.", **fv)
  flags.DEFINE_string(
      "export_dir", None, "If set, write a SavedModel here "
      "with signatures 'serving_default' (raw strings text_a, "
      "text_b; tokenizer in the graph) and 'serving_ids'.", **fv)
  flags.DEFINE_enum(
      "long_text", "truncate", ["truncate", "sliding_window"],
      "Inputs over max_seq_length: keep the first word pieces "
      "(the original) or average logits over sliding windows.", **fv)
  flags.DEFINE_bool(
      "trim_padding", True, "Run each train/eval/predict batch at its "
      "longest sequence (rounded up to a bucket) instead of "
      "--max_seq_length: same results, less work. false: the original's "
      "fixed padding.", **fv)
  flags.DEFINE_bool(
      "group_by_length", False, "Training batches group sentences of "
      "similar length (with --trim_padding): much less padding on real "
      "text, but other batches than the original's shuffle gives, so "
      "results differ. Default false: the original's batches.", **fv)
  flags.DEFINE_integer(
      "doc_stride", 64, "With --long_text=sliding_window: "
      "word pieces between the starts of two windows.", **fv)
  # The generic tsv/csv tasks (--task_name=tsv|csv).
  flags.DEFINE_string(
      "text_a_column", "1", "tsv/csv: column of the text "
      "(0-based index, or name from the header line).", **fv)
  flags.DEFINE_string(
      "text_b_column", None, "tsv/csv: column of the second "
      "text of a pair task (index or name); unset: single.", **fv)
  flags.DEFINE_string(
      "label_column", "0", "tsv/csv: column of the label; "
      "several comma-separated 0/1 columns (indexes or "
      "names) make a multi-label task.", **fv)
  flags.DEFINE_string(
      "multi_label_delimiter", None, "tsv/csv: the label "
      "field holds several labels separated by this string "
      "(multi-label: sigmoid outputs, per-label and micro/"
      "macro F1).", **fv)
  flags.DEFINE_string(
      "label_list", None, "tsv/csv: comma-separated labels in "
      "output order; default: sorted labels of the train file.", **fv)
  flags.DEFINE_bool(
      "has_header", True, "tsv/csv: the first line of each file "
      "is a header (skipped; gives column names).", **fv)
  flags.DEFINE_string(
      "delimiter", None, "tsv/csv: field delimiter (default "
      "tab for tsv, comma for csv; 'tab'/'comma' accepted).", **fv)
  flags.DEFINE_string(
      "quotechar", None, "tsv/csv: quote character (default "
      "none for tsv, '\"' for csv).", **fv)
  flags.DEFINE_string(
      "train_file", None, "tsv/csv: training file name in "
      "--data_dir (default train.tsv / train.csv).", **fv)
  flags.DEFINE_string("dev_file", None, "tsv/csv: dev file (dev.tsv/.csv).",
                      **fv)
  flags.DEFINE_string("test_file", None, "tsv/csv: test file (test.tsv/.csv).",
                      **fv)
