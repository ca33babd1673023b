"""Sharded, streaming, multi-process instance creation (`--num_workers N>=2`).

The corpus is streamed and cut into shards of `shard_documents` documents;
each shard is made in a worker process as the original makes the whole
corpus, with its own `random.Random("<random_seed>/<shard index>")`, and the
parent writes the shards in order, round-robin, holding about
`2 * num_workers` shards at a time. Not the original's order, but
deterministic and independent of the number of workers
(docs/pretraining_data.md, "Sharded mode").
"""

import collections
import concurrent.futures
import multiprocessing
import random
import sys
import time

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import stages
from bert_tf2.pretraining_data import word_boundaries
from bert_tf2.pretraining_data import writer as writer_lib

_WORKER = {}


def iter_shards(document_lines, shard_documents):
  """Groups documents into shards of `shard_documents` (last one merged).

  Example:
    >>> [len(s) for s in iter_shards([["x"]] * 9, 4)]
    [4, 5]
    >>> [len(s) for s in iter_shards([["x"]] * 10, 4)]
    [4, 4, 2]
  """
  previous = None
  current = []
  for doc in document_lines:
    current.append(doc)
    if len(current) == shard_documents:
      if previous is not None:
        yield previous
      previous, current = current, []
  if previous is not None:
    if current and 2 * len(current) < shard_documents:
      previous.extend(current)
      current = []
    yield previous
  if current:
    yield current


def shard_rng(random_seed, shard_index):
  """The generator of one shard (str seeds hash with SHA-512: stable)."""
  return random.Random("%d/%d" % (random_seed, shard_index))


def shard_tokenize_ids(tokenizer, options):
  """text -> token ids for a shard (no --segmented_file in sharded runs)."""
  if options.word_boundaries == "none":
    return stages.make_tokenize_ids(tokenizer)
  return word_boundaries.make_tokenize_ids(tokenizer, options.word_boundaries)


def _init_worker(tokenizer, options):
  _WORKER["tokenizer"] = tokenizer
  _WORKER["options"] = options
  _WORKER["tokenize_ids"] = shard_tokenize_ids(tokenizer, options)


def process_shard(shard_index, document_lines):
  """`shard_records` in a worker process of `run_sharded`."""
  return shard_records(shard_index, document_lines, _WORKER["tokenizer"],
                       _WORKER["options"], _WORKER["tokenize_ids"])


def shard_records(shard_index, document_lines, tokenizer, options,
                  tokenize_ids):
  """Tokenizes one shard and makes its shuffled serialized instances
  (`run_sharded`'s workers and the Beam pipeline).

  Args:
    shard_index: int.
    document_lines: list of documents, each a list of stripped lines.
    tokenizer: tokenization.FullTokenizer.
    options: DataOptions.
    tokenize_ids: `shard_tokenize_ids(tokenizer, options)`.

  Returns:
    (records, stats_dict): list of serialized Examples, CorpusStats counts.
  """
  stats = documents_lib.CorpusStats()
  docs = []
  for lines in document_lines:
    doc = documents_lib.tokenize_document(lines, tokenize_ids, stats)
    if doc:
      docs.append(doc)
  stats.documents = len(docs)
  if not docs:
    return [], stats.to_dict()
  rng = shard_rng(options.random_seed, shard_index)
  rng.shuffle(docs)
  records = stages.create_records(docs, tokenizer, options, rng, stats)
  return records, stats.to_dict()


def _context():
  # Fork shares the loaded tokenizer (workers never touch TensorFlow); it is
  # unsafe or missing off Linux.
  if sys.platform.startswith("linux"):
    return multiprocessing.get_context("fork")
  return multiprocessing.get_context("spawn")


def run_sharded(input_files, output_files, tokenizer, options):
  """Writes the sharded instances; returns the merged CorpusStats."""
  stats = documents_lib.CorpusStats()
  start = time.time()
  shards = iter_shards(
      documents_lib.iter_document_lines(
          documents_lib.iter_lines(input_files, stats)),
      options.shard_documents)
  logged = []
  max_pending = 2 * options.num_workers
  progress = stages.Progress(0, options.progress_seconds)
  pool = concurrent.futures.ProcessPoolExecutor(
      max_workers=options.num_workers, mp_context=_context(),
      initializer=_init_worker, initargs=(tokenizer, options))
  try:
    with writer_lib.RoundRobinWriter(output_files) as writer:
      pending = collections.deque()

      def drain_one():
        records, shard_stats = pending.popleft().result()
        for record in records:
          writer.write(record)
        if len(logged) < options.log_examples:
          logged.extend(records[:options.log_examples - len(logged)])
        for name, value in shard_stats.items():
          if name not in ("files", "lines", "undecodable_bytes"):
            setattr(stats, name, getattr(stats, name) + value)
        progress.update(stats.documents, stats.instances)

      num_shards = 0
      for index, shard in enumerate(shards):
        num_shards = index + 1
        pending.append(pool.submit(process_shard, index, shard))
        while len(pending) >= max_pending:
          drain_one()
      while pending:
        drain_one()
      if not stats.instances:
        raise InputError("--input_file: no text in %s (every line is empty "
                         "or tokenizes to nothing)" % ", ".join(input_files))
  except BaseException:
    pool.shutdown(wait=True, cancel_futures=True)
    raise
  pool.shutdown(wait=True)
  progress.update(stats.documents, stats.instances, force=True)
  stages.log_example_records(logged, tokenizer, options.log_examples)
  logging.info("Wrote %d total instances (%d shards, %d workers)",
               stats.instances, num_shards, options.num_workers)
  stages.log_summary(stats, time.time() - start)
  return stats
