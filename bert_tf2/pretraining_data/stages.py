"""The steps `pipeline` and `parallel` share: tokenizing, making and encoding
the instances, progress and summary logging.

Example:
  >>> import collections
  >>> Tok = collections.namedtuple("Tok", "tokenize vocab")
  >>> ids = make_tokenize_ids(Tok(str.split, {"a": 5, "b": 6}))
  >>> ids("a b a")
  [5, 6, 5]
"""

import time

from absl import logging

from bert_tf2.pretraining_data import fast
from bert_tf2.pretraining_data import instances as instances_lib
from bert_tf2.pretraining_data import masking
from bert_tf2.pretraining_data import writer as writer_lib


def make_tokenize_ids(tokenizer):
  """Returns text -> list of token ids: the tokenizer's cached
  `tokenize_to_ids` when it has one, else `tokenize` + vocab lookup."""
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
      word_level=options.word_boundaries != "none")


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
  inv_vocab = tokenizer.inv_vocab
  for record in records[:limit]:
    feature = writer_lib.parse_record(record)  # No TensorFlow needed.
    ids = feature["input_ids"]
    length = sum(feature["input_mask"])
    logging.info("*** Example ***")
    logging.info("tokens: %s", " ".join(inv_vocab[i] for i in ids[:length]))
    for name in writer_lib.FEATURE_NAMES:
      logging.info("%s: %s", name, " ".join(str(x) for x in feature[name]))


class PythonRecordMaker(object):
  """fast.RecordMaker's interface on the Python code: the same records."""

  def __init__(self, all_documents, inst_options, rng, encode):
    self._documents = all_documents
    self._options = inst_options
    self._rng = rng
    self._encode = encode
    self._counts = [0, 0, 0]

  def make(self, document_index):
    records = []
    for inst in instances_lib.create_instances_from_document(
        self._documents, document_index, self._options, self._rng):
      records.append(self._encode(*inst))  # Instance: encode()'s arguments.
      self._counts[0] += 1
      self._counts[1] += len(inst.input_ids)
      self._counts[2] += len(inst.masked_lm_positions)
    return records

  def counts(self):
    return tuple(self._counts)

  def close(self):
    """Nothing to hand back: `rng` was used directly."""


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
  maker = fast.make_record_maker(all_documents, inst_options, rng)
  if maker is None:
    encoder = writer_lib.ExampleEncoder(
        options.max_seq_length, options.max_predictions_per_seq,
        max_id=max(tokenizer.vocab.values()))
    maker = PythonRecordMaker(all_documents, inst_options, rng,
                              encoder.encode)
  records = []
  num_docs = len(all_documents)
  try:
    for dupe in range(options.dupe_factor):
      for document_index in range(num_docs):
        records.extend(maker.make(document_index))
        if progress is not None and document_index % 64 == 0:
          progress.update(dupe * num_docs + document_index + 1, len(records))
  finally:
    maker.close()
  instances, instance_tokens, masked_tokens = maker.counts()
  stats.instances += instances
  stats.instance_tokens += instance_tokens
  stats.masked_tokens += masked_tokens
  rng.shuffle(records)
  return records


def log_summary(stats, seconds):
  logging.info(
      "summary: %d documents, %d instances, %d tokens read, %d instance "
      "tokens, %d masked tokens, %d undecodable bytes dropped, %.1fs "
      "(%.0f instances/s)", stats.documents, stats.instances, stats.tokens,
      stats.instance_tokens, stats.masked_tokens, stats.undecodable_bytes,
      seconds, stats.instances / max(seconds, 1e-9))
