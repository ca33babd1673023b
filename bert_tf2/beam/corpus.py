"""The corpus read in a Beam pipeline, cut into `--num_workers` mode's shards.

The shards must be the sharded mode's exactly (same documents, same index),
and they depend on the whole corpus read in file order: a document may run
on from one file into the next, and the last short shard joins the one
before. So one reader goes through the files in order, with
pretraining_data's own line reader, document grouping and shard cut
(`documents.iter_lines`, `iter_document_lines`, `parallel.iter_shards`), as
`run_sharded`'s parent process does; the shards it emits are redistributed
(`beam.Reshuffle`) so that the costly part, tokenizing and making the
instances of each shard, runs on every worker. Reading is light next to it
(a few % of the work; docs/pretraining_data.md, "Beam pipeline").

Files are opened with Beam's filesystems (local paths, gs://, s3://, hdfs://
... whatever the installed Beam supports). A file that cannot be read is one
InputError naming it; so is a corpus without any text.

Example:
  >>> import os, tempfile
  >>> d = tempfile.mkdtemp()
  >>> path = os.path.join(d, "c.txt")
  >>> _ = open(path, "w").write("a.\\nb.\\n\\nc.\\n\\nd.\\n\\ne.\\n")
  >>> [(i, docs) for i, docs in read_shards([path], shard_documents=2)]
  [(0, [['a.', 'b.'], ['c.']]), (1, [['d.'], ['e.']])]
"""

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import parallel

NAMESPACE = "create_pretraining_data"
# The tagged output of CorpusStats counts ({name: int} dicts).
STATS = "stats"
# The counts the reader makes (the shard function makes the others).
READER_STATS = ("files", "lines", "undecodable_bytes")


def beam_raw_lines(path, flag_name="input_file"):
  """Yields the raw b"\\n"-terminated lines of `path` via Beam's filesystems.

  Raises:
    InputError: naming the file, when it cannot be opened or read.
  """
  try:
    f = FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)
  except (IOError, OSError) as e:
    raise InputError("--%s: cannot read %s: %s" % (flag_name, path,
                                                  str(e).split("\n")[0]))
  try:
    with f:
      for line in f:
        yield line
  except (IOError, OSError) as e:
    raise InputError("--%s: error reading %s: %s" % (flag_name, path, e))


def read_shards(input_files, shard_documents, stats=None):
  """Yields (shard index, documents) of the corpus, as `run_sharded` cuts it.

  Args:
    input_files: list of paths (expanded, in the corpus's order).
    shard_documents: int, documents per shard (`--shard_documents`).
    stats: optional CorpusStats, counting files, lines and bad bytes.

  Raises:
    InputError: a file cannot be read, or no file holds a document.
  """
  stats = stats if stats is not None else documents_lib.CorpusStats()
  shards = parallel.iter_shards(
      documents_lib.iter_document_lines(documents_lib.iter_lines(
          input_files, stats, raw_lines=beam_raw_lines)),
      shard_documents)
  index = -1
  for index, shard in enumerate(shards):
    yield index, shard
  if index < 0:
    raise InputError("--input_file: no text in %s (every line is empty)"
                     % ", ".join(input_files))


class _ReadShardsFn(beam.DoFn):
  """The one reader: the whole corpus in order -> (index, documents)."""

  def __init__(self, input_files, shard_documents):
    super().__init__()
    self._input_files = list(input_files)
    self._shard_documents = shard_documents

  def process(self, unused_element):
    stats = documents_lib.CorpusStats()
    for shard in read_shards(self._input_files, self._shard_documents, stats):
      yield shard
    yield beam.pvalue.TaggedOutput(STATS, {name: getattr(stats, name)
                                           for name in READER_STATS})


class ReadShards(beam.PTransform):
  """PBegin -> (shards, stats): PCollections of (shard index, list of
  documents), spread over the workers, and of the reader's counts (one
  {name: int} dict; see pretraining_data.CountStats).

  Each document is a list of stripped non-empty lines (str).
  """

  def __init__(self, input_files, shard_documents):
    super().__init__()
    self._input_files = list(input_files)
    self._shard_documents = shard_documents

  def expand(self, pbegin):
    read = (pbegin
            | "Start" >> beam.Create([None])
            | "Read" >> beam.ParDo(_ReadShardsFn(
                self._input_files, self._shard_documents)).with_outputs(
                    STATS, main="shards"))
    return read.shards | "Spread" >> beam.Reshuffle(), read[STATS]
