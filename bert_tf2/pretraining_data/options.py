"""Validated settings of a create_pretraining_data run.

Example:
  >>> DataOptions(max_seq_length=4).validate()
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: --max_seq_length=4: must be at least 5 ([CLS] A [SEP] B [SEP] needs one token in each of A and B)
"""

from bert_tf2.common import InputError
from bert_tf2.common import cli
from bert_tf2.pretraining_data import documents

SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[MASK]", "[UNK]")


class DataOptions(object):
  """The original's flags, with the original defaults, plus ours
  (pretraining_data.flags); log_examples: instances logged like the
  original, progress_seconds: interval of progress logs."""

  def __init__(self, do_lower_case=True, do_whole_word_mask=False,
               max_seq_length=128, max_predictions_per_seq=20,
               random_seed=12345, dupe_factor=10, masked_lm_prob=0.15,
               short_seq_prob=0.1, num_workers=1, shard_documents=1000,
               log_examples=20, progress_seconds=30.0,
               word_boundaries="none", segmented_file=None):
    self.do_lower_case = do_lower_case
    self.do_whole_word_mask = do_whole_word_mask
    self.max_seq_length = max_seq_length
    self.max_predictions_per_seq = max_predictions_per_seq
    self.random_seed = random_seed
    self.dupe_factor = dupe_factor
    self.masked_lm_prob = masked_lm_prob
    self.short_seq_prob = short_seq_prob
    self.num_workers = num_workers
    self.shard_documents = shard_documents
    self.log_examples = log_examples
    self.progress_seconds = progress_seconds
    self.word_boundaries = word_boundaries or "none"
    self.segmented_file = segmented_file

  @classmethod
  def from_flags(cls, f):
    """The validated options of the parsed flags `f`."""
    return cls(
        do_lower_case=f.do_lower_case,
        do_whole_word_mask=f.do_whole_word_mask,
        max_seq_length=f.max_seq_length,
        max_predictions_per_seq=f.max_predictions_per_seq,
        random_seed=f.random_seed, dupe_factor=f.dupe_factor,
        masked_lm_prob=f.masked_lm_prob, short_seq_prob=f.short_seq_prob,
        num_workers=f.num_workers, shard_documents=f.shard_documents,
        word_boundaries=f.word_boundaries,
        segmented_file=f.segmented_file).validate()

  def validate(self):
    """Raises InputError for a flag value that cannot work."""
    if self.max_seq_length < 5:
      raise InputError(
          "--max_seq_length=%d: must be at least 5 ([CLS] A [SEP] B [SEP] "
          "needs one token in each of A and B)" % self.max_seq_length)
    if self.max_predictions_per_seq < 1:
      raise InputError("--max_predictions_per_seq=%d: must be at least 1"
                       % self.max_predictions_per_seq)
    if not 0.0 <= self.masked_lm_prob <= 1.0:
      raise InputError("--masked_lm_prob=%r: must be in [0, 1]"
                       % self.masked_lm_prob)
    if not 0.0 <= self.short_seq_prob <= 1.0:
      raise InputError("--short_seq_prob=%r: must be in [0, 1]"
                       % self.short_seq_prob)
    if self.dupe_factor < 1:
      raise InputError("--dupe_factor=%d: must be at least 1 (0 would write "
                       "no instances)" % self.dupe_factor)
    if self.num_workers < 1:
      raise InputError("--num_workers=%d: must be at least 1"
                       % self.num_workers)
    if self.shard_documents < 2:
      raise InputError("--shard_documents=%d: must be at least 2 (random "
                       "next sentences come from other documents of the "
                       "shard)" % self.shard_documents)
    if self.word_boundaries not in ("none", "spaces", "jieba"):
      raise InputError("--word_boundaries=%s: expected none, spaces or jieba"
                       % self.word_boundaries)
    if self.segmented_file and self.num_workers > 1:
      raise InputError("--segmented_file: needs --num_workers=1 (its lines "
                       "pair with the input's in one sequential read)")
    if self.segmented_file and self.word_boundaries != "spaces":
      raise InputError("--segmented_file needs --word_boundaries=spaces")
    return self


def check_vocab(vocab, vocab_file, flag_name="vocab_file"):
  """Raises InputError unless `vocab` has the special tokens BERT needs."""
  missing = [t for t in SPECIAL_TOKENS if t not in vocab]
  if missing:
    raise InputError("--%s=%s: vocabulary lacks %s (needed for BERT "
                     "pretraining data)" % (flag_name, vocab_file,
                                            ", ".join(missing)))


def output_file_list(output_file, num_output_files, flag_name="output_file"):
  """The output paths of --output_file and --num_output_files.

  Example:
    >>> output_file_list("a.tfrecord,b.tfrecord", 0)
    ['a.tfrecord', 'b.tfrecord']
    >>> output_file_list("out/records", 2)
    ['out/records-00000-of-00002', 'out/records-00001-of-00002']
  """
  if num_output_files < 0:
    raise InputError("--num_output_files=%d: must be at least 0"
                     % num_output_files)
  if not num_output_files:
    return (output_file or "").split(",")
  if not output_file or "," in output_file:
    raise InputError("--%s=%s: with --num_output_files, one path prefix "
                     "(no commas)" % (flag_name, output_file))
  return ["%s-%05d-of-%05d" % (output_file, i, num_output_files)
          for i in range(num_output_files)]


def check_output_files(output_files, input_files, flag_name="output_file"):
  """Raises InputError for duplicate outputs, missing dirs, or in == out."""
  import os
  if not output_files:
    raise InputError("--%s is empty" % flag_name)
  seen = set()
  inputs = {os.path.abspath(p) for p in input_files if "://" not in p}
  for path in output_files:
    if not path:
      raise InputError("--%s: empty file name in the comma-separated list"
                       % flag_name)
    key = path if "://" in path else os.path.abspath(path)
    if key in seen:
      raise InputError("--%s: %s is listed twice" % (flag_name, path))
    seen.add(key)
    if key in inputs:
      raise InputError("--%s: %s is also an input file" % (flag_name, path))
    if "://" not in path:  # Directory, type and name length.
      cli.require_output_file(flag_name, path)
      continue
    parent = os.path.dirname(path)
    if parent and not documents.isdir(parent):
      raise InputError("--%s=%s: directory %s does not exist"
                       % (flag_name, path, parent))
    if documents.isdir(path):
      raise InputError("--%s=%s: is a directory" % (flag_name, path))

