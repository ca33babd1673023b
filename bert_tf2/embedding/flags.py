"""Flags of run_embedding.py: the shared fine-tuning flags
(`runner.finetuning_flags`) and its own."""

from absl import flags

from bert_tf2.finetune import settings_with_defaults

from bert_tf2.embedding import pooling
from bert_tf2.runner import finetuning_flags


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_embedding.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string(
      "data_dir", None, "Directory of the JSONL pair files (anchor, "
      "positive, optional negative).", **fv)
  flags.DEFINE_string("train_file", "train.jsonl", "Training pairs in "
                      "--data_dir.", **fv)
  flags.DEFINE_string("dev_file", "dev.jsonl", "Held-out pairs: retrieval "
                      "of each anchor's positive among all dev positives "
                      "(and negatives).", **fv)
  flags.DEFINE_string("test_file", "test.jsonl", "Pairs for --do_predict: "
                      "each anchor's top 10 among the test positives.", **fv)
  finetuning_flags.define_finetuning_flags(flag_values)
  flags.DEFINE_enum(
      "pooling", "mean", [m for m in pooling.MODES],
      "Token vectors -> sentence vector (mean: sentence-transformers' "
      "default, all-MiniLM-L6-v2's).", **fv)
  flags.DEFINE_bool("normalize", True, "L2-normalise the exported "
                    "embeddings (the loss uses cosines either way).", **fv)
  flags.DEFINE_float("scale", 20.0, "Multiplies the cosine similarities "
                     "in the ranking loss (sentence-transformers' 20).", **fv)
  flags.DEFINE_string(
      "export_dir", None, "If set, write a SavedModel here with signature "
      "'serving_default' (raw strings text [batch] -> embeddings).", **fv)


def default_settings(**overrides):
  """The flags with their defaults as Settings (unknown names refused).

  Example:
    >>> s = default_settings(data_dir="/d")
    >>> s.pooling, s.scale, s.train_batch_size
    ('mean', 20.0, 32)
  """
  return settings_with_defaults(define_flags, **overrides)
