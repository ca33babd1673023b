"""The corpus read in a Beam pipeline, cut into `--num_workers` mode's shards.

The shards depend on the whole corpus read in file order (a document may
run on into the next file; the last short shard joins the one before), so
one reader cuts them as `run_sharded`'s parent does, through Beam's
filesystems, and `beam.Reshuffle` spreads them over the workers.

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
STATS = "stats"  # The tagged output of CorpusStats counts.
READER_STATS = ("files", "lines", "undecodable_bytes")


def beam_raw_lines(path, flag_name="input_file"):
  """Yields the raw b"\\n"-terminated lines of `path` via Beam's filesystems."""
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
  """PBegin -> (shards, stats): PCollections of (shard index, documents
  as lists of lines), spread over the workers, and of the reader's counts
  (one {name: int} dict)."""

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
