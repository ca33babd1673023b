"""Flags of run_multiple_choice.py: the shared fine-tuning flags
(`runner.finetuning_flags`) and its own."""

from absl import flags

from bert_tf2.finetune import settings_with_defaults

from bert_tf2.runner import finetuning_flags


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_multiple_choice.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string(
      "data_dir", None, "Directory of the train/dev/test files: SWAG CSV "
      "(*.csv) or JSONL (context, question, choices, label).", **fv)
  flags.DEFINE_string("train_file", "train.jsonl",
                      "Training file in --data_dir (.csv: SWAG layout).",
                      **fv)
  flags.DEFINE_string("dev_file", "dev.jsonl", "Dev file in --data_dir.",
                      **fv)
  flags.DEFINE_string("test_file", "test.jsonl", "Test file in --data_dir.",
                      **fv)
  finetuning_flags.define_finetuning_flags(flag_values)
  flags.DEFINE_float(
      "classifier_dropout_prob", 0.1, "Dropout rate on the pooled output "
      "before the one-output scoring layer, in training.", **fv)
  flags.DEFINE_string(
      "export_dir", None, "If set, write a SavedModel here with signature "
      "'serving_default' (raw strings context [batch], choices [batch, "
      "num_choices] -> probabilities, logits, label).", **fv)


def default_settings(**overrides):
  """The flags with their defaults as Settings (unknown names refused).

  Example:
    >>> s = default_settings(data_dir="/d")
    >>> s.max_seq_length, s.train_batch_size, s.learning_rate
    (128, 32, 5e-05)
  """
  return settings_with_defaults(define_flags, **overrides)
