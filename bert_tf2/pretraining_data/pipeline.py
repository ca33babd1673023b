"""The create_pretraining_data run: read, tokenize, make instances, write.

`run(input_files, output_files, tokenizer, options)` is what the script calls.
With `options.num_workers == 1` it reproduces the original exactly: one
`random.Random(random_seed)`, the whole corpus read and shuffled, `dupe_factor`
passes over every document, all instances shuffled, then written round-robin.
Instances are kept as serialized records (a few hundred bytes each) rather
than Python objects, which cuts the original's memory several times.
With `num_workers >= 2` it runs pretraining_data.parallel (sharded, streaming,
not the original's order).

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
  ...             DataOptions(max_seq_length=16, dupe_factor=2,
  ...                         log_examples=0))
  >>> stats.documents, stats.instances
  (2, 6)
"""

import random
import time

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import instances as instances_lib
from bert_tf2.pretraining_data import masking
from bert_tf2.pretraining_data import writer as writer_lib
from bert_tf2.pretraining_data.options import DataOptions  # pylint: disable=unused-import
from bert_tf2.pretraining_data.options import check_vocab


def make_tokenize_ids(tokenizer):
  """Returns text -> list of token ids, via the tokenizer's own vocab.

  Uses the tokenizer's cached `tokenize_to_ids` when it has one (this
  project's tokenization.FullTokenizer), else `tokenize` + vocab lookup.
  """
  fast = getattr(tokenizer, "tokenize_to_ids", None)
  if fast is not None:
    return fast
  tokenize = tokenizer.tokenize
  vocab = tokenizer.vocab

  def tokenize_ids(text):
    return [vocab[token] for token in tokenize(text)]
  return tokenize_ids


def make_instance_options(tokenizer, options):
  vocab = tokenizer.vocab
  return instances_lib.InstanceOptions(
      max_seq_length=options.max_seq_length,
      short_seq_prob=options.short_seq_prob,
      masked_lm_prob=options.masked_lm_prob,
      max_predictions_per_seq=options.max_predictions_per_seq,
      cls_id=vocab["[CLS]"], sep_id=vocab["[SEP]"],
      masking_vocab=masking.MaskingVocab.from_vocab(vocab),
      do_whole_word_mask=options.do_whole_word_mask,
      word_level=getattr(options, "word_boundaries", "none") != "none")


def make_encoder(tokenizer, options):
  return writer_lib.ExampleEncoder(
      options.max_seq_length, options.max_predictions_per_seq,
      max_id=max(tokenizer.vocab.values()))


class Progress(object):
  """Logs documents processed and instances/s every `interval` seconds."""

  def __init__(self, total_documents, interval):
    self.total_documents = total_documents
    self.interval = interval
    self.start = time.time()
    self._last = self.start

  def update(self, documents_done, instances_done, force=False):
    now = time.time()
    if not force and now - self._last < self.interval:
      return
    self._last = now
    elapsed = max(now - self.start, 1e-9)
    total = ("/%d" % self.total_documents) if self.total_documents else ""
    logging.info("progress: %d%s documents, %d instances, %.0f instances/s",
                 documents_done, total, instances_done,
                 instances_done / elapsed)


def log_example_records(records, tokenizer, limit):
  """Logs the first `limit` records the way the original logs instances."""
  if limit <= 0:
    return
  import tensorflow as tf
  inv_vocab = tokenizer.inv_vocab
  for record in records[:limit]:
    feature = tf.train.Example.FromString(record).features.feature
    ids = list(feature["input_ids"].int64_list.value)
    length = sum(feature["input_mask"].int64_list.value)
    logging.info("*** Example ***")
    logging.info("tokens: %s", " ".join(inv_vocab[i] for i in ids[:length]))
    for name in writer_lib.FEATURE_NAMES:
      values = (feature[name].int64_list.value or
                feature[name].float_list.value)
      logging.info("%s: %s", name, " ".join(str(x) for x in values))


def count_instance(stats, instance):
  stats.instances += 1
  stats.instance_tokens += len(instance.input_ids)
  stats.masked_tokens += len(instance.masked_lm_positions)


def create_records(all_documents, tokenizer, options, rng, stats,
                   progress=None):
  """Makes the serialized instances of shuffled documents, then shuffles them.

  Args:
    all_documents: documents already in their final order.
    tokenizer: FullTokenizer (its vocab).
    options: DataOptions.
    rng: random.Random, shared with the document shuffle before.
    stats: CorpusStats, counts instances and tokens.
    progress: Progress or None.

  Returns:
    list of bytes, serialized tf.train.Example records in output order.
  """
  inst_options = make_instance_options(tokenizer, options)
  encode = make_encoder(tokenizer, options).encode
  records = []
  num_docs = len(all_documents)
  for dupe in range(options.dupe_factor):
    for document_index in range(num_docs):
      for inst in instances_lib.create_instances_from_document(
          all_documents, document_index, inst_options, rng):
        records.append(encode(inst.input_ids, inst.len_a,
                              inst.masked_lm_positions, inst.masked_lm_ids,
                              inst.is_random_next))
        count_instance(stats, inst)
      if progress is not None and document_index % 64 == 0:
        progress.update(dupe * num_docs + document_index + 1, len(records))
  rng.shuffle(records)
  return records


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
    from bert_tf2.pretraining_data import parallel  # pylint: disable=g-import-not-at-top
    return parallel.run_sharded(input_files, output_files, tokenizer, options)

  stats = documents_lib.CorpusStats()
  start = time.time()
  tokenize_ids = make_tokenize_ids(tokenizer)
  if options.word_boundaries != "none":
    from bert_tf2.pretraining_data import word_boundaries  # pylint: disable=g-import-not-at-top
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
  progress = Progress(len(all_documents) * options.dupe_factor,
                      options.progress_seconds)
  records = create_records(all_documents, tokenizer, options, rng, stats,
                           progress)
  del all_documents
  progress.update(progress.total_documents, len(records), force=True)

  logging.info("*** Writing to output files ***")
  for path in output_files:
    logging.info("  %s", path)
  with writer_lib.RoundRobinWriter(output_files) as writer:
    for record in records:
      writer.write(record)
  log_example_records(records, tokenizer, options.log_examples)
  logging.info("Wrote %d total instances", len(records))
  log_summary(stats, time.time() - start)
  return stats


def log_summary(stats, seconds):
  logging.info(
      "summary: %d documents, %d instances, %d tokens read, %d instance "
      "tokens, %d masked tokens, %d undecodable bytes dropped, %.1fs "
      "(%.0f instances/s)", stats.documents, stats.instances, stats.tokens,
      stats.instance_tokens, stats.masked_tokens, stats.undecodable_bytes,
      seconds, stats.instances / max(seconds, 1e-9))
