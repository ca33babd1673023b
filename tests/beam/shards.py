"""Test helpers: the sharded mode's reference shards and the Beam output's.

`local_shards` makes each shard's records with the sharded mode's own code
(pretraining_data.parallel on the local reader); `beam_runs` reads a Beam
run's files and splits them into whole shards, failing unless every file
is a sequence of complete shards, each exactly as the reference makes it
(same records, same order).
"""

import collections
import glob

import tensorflow as tf

from bert_tf2.pretraining_data import documents
from bert_tf2.pretraining_data import parallel

# The DirectRunner's portable engine, named: Beam 2.77's DirectRunner first
# tries its Prism runner, downloading a binary from GitHub when it can (no
# downloads in tests), and falls back to this one.
BEAM_IN_PROCESS = ["--runner=FnApiRunner"]


def local_shards(input_files, tokenizer, options):
  """list over shards of their serialized records, as run_sharded makes
  them (in shard order)."""
  stats = documents.CorpusStats()
  tokenize_ids = parallel.shard_tokenize_ids(tokenizer, options)
  shards = parallel.iter_shards(
      documents.iter_document_lines(documents.iter_lines(input_files, stats)),
      options.shard_documents)
  return [parallel.shard_records(i, docs, tokenizer, options,
                                 tokenize_ids)[0]
          for i, docs in enumerate(shards)]


def read_records(path):
  return [r.numpy() for r in tf.data.TFRecordDataset(path)]


def output_files(prefix):
  return sorted(glob.glob(glob.escape(prefix) + "-*-of-*"))


def split_into_shards(records, shards):
  """Indices of the `shards` whose consecutive runs make up `records`.

  Raises AssertionError at the first position where no reference shard
  starts with the records found there.
  """
  starts = collections.defaultdict(list)
  for k, shard in enumerate(shards):
    if shard:
      starts[shard[0]].append(k)
  found, i = [], 0
  while i < len(records):
    for k in starts.get(records[i], []):
      if records[i:i + len(shards[k])] == shards[k]:
        found.append(k)
        i += len(shards[k])
        break
    else:
      raise AssertionError("record %d of %d starts no reference shard in "
                           "order" % (i, len(records)))
  return found


def beam_shard_order(prefix, shards):
  """{file: shard indices in it}; asserts each shard is written once, whole
  and in its order."""
  layout = {path: split_into_shards(read_records(path), shards)
            for path in output_files(prefix)}
  written = sorted(k for ks in layout.values() for k in ks)
  assert written == [k for k, s in enumerate(shards) if s], layout
  return layout


def record_counter(prefix):
  """Multiset of every record in a run's files."""
  return collections.Counter(r for path in output_files(prefix)
                             for r in read_records(path))
