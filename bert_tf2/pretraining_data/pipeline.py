"""The create_pretraining_data run: read, tokenize, make instances, write.

With `options.num_workers == 1` it reproduces the original exactly, keeping
instances as serialized records (less memory than the original's objects);
with `num_workers >= 2` it runs pretraining_data.parallel.

Example:
  >>> import os, tempfile, tokenization
  >>> d = tempfile.mkdtemp()
  >>> vocab = os.path.join(d, "vocab.txt")
  >>> _ = open(vocab, "w").write("\\n".join(
  ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat",
  ...      "dog", "ran", "."]))
  >>> corpus = os.path.join(d, "corpus.txt")
  >>> _ = open(corpus, "w").write(
  ...     "the cat sat.\\nthe dog ran.\\n\\nthe dog sat.\\nthe cat ran.\\n")
  >>> stats = run([corpus], [os.path.join(d, "out.tfrecord")],
  ...             tokenization.FullTokenizer(vocab),
  ...             options_lib.DataOptions(max_seq_length=16, dupe_factor=2,
  ...                                     log_examples=0))
  >>> stats.documents, stats.instances
  (2, 6)
"""

import random
import time

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import parallel
from bert_tf2.pretraining_data import stages
from bert_tf2.pretraining_data import word_boundaries
from bert_tf2.pretraining_data import writer as writer_lib
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data.options import check_vocab
import tokenization


def run(input_files, output_files, tokenizer, options):
  """Creates the pretraining TFRecords; returns the CorpusStats.

  Args:
    input_files: list of text file paths (already expanded, in order).
    output_files: list of output TFRecord paths (round-robin).
    tokenizer: tokenization.FullTokenizer.
    options: DataOptions.

  Raises:
    InputError: bad flags, vocabulary or an input without any text.
  """
  options.validate()
  check_vocab(tokenizer.vocab, getattr(tokenizer, "vocab_file", "?"))
  if options.num_workers > 1:
    return parallel.run_sharded(input_files, output_files, tokenizer, options)

  stats = documents_lib.CorpusStats()
  start = time.time()
  tokenize_ids = stages.make_tokenize_ids(tokenizer)
  if options.word_boundaries != "none":
    segmented = None
    if options.segmented_file:
      segmented = documents_lib.expand_input_patterns(
          "segmented_file", options.segmented_file)
    tokenize_ids = word_boundaries.make_tokenize_ids(
        tokenizer, options.word_boundaries, segmented)
  all_documents = documents_lib.read_documents(input_files, tokenize_ids,
                                               stats)
  if not all_documents:
    raise InputError("--input_file: no text in %s (every line is empty or "
                     "tokenizes to nothing)" % ", ".join(input_files))
  logging.info("read %d documents (%d tokens) in %.1fs", len(all_documents),
               stats.tokens, time.time() - start)
  rng = random.Random(options.random_seed)
  rng.shuffle(all_documents)
  progress = stages.Progress(len(all_documents) * options.dupe_factor,
                             options.progress_seconds)
  records = stages.create_records(all_documents, tokenizer, options, rng,
                                  stats, progress)
  del all_documents
  progress.update(progress.total_documents, len(records), force=True)

  logging.info("*** Writing to output files ***")
  for path in output_files:
    logging.info("  %s", path)
  with writer_lib.RoundRobinWriter(output_files) as writer:
    for record in records:
      writer.write(record)
  stages.log_example_records(records, tokenizer, options.log_examples)
  logging.info("Wrote %d total instances", len(records))
  stages.log_summary(stats, time.time() - start)
  return stats


def run_from_flags(f):
  """create_pretraining_data.py's `main`: the work of its parsed flags `f`
  (`pretraining_data.flags`); returns the CorpusStats of `run`."""
  options = options_lib.DataOptions.from_flags(f)
  input_files = documents_lib.expand_input_patterns("input_file",
                                                    f.input_file)
  output_files = options_lib.output_file_list(f.output_file,
                                              f.num_output_files)
  options_lib.check_output_files(output_files, input_files)
  tokenizer = tokenization.FullTokenizer(
      vocab_file=f.vocab_file, do_lower_case=f.do_lower_case)

  logging.info("*** Reading from input files ***")
  for input_file in input_files:
    logging.info("  %s", input_file)
  return run(input_files, output_files, tokenizer, options)
