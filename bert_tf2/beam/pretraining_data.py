"""create_pretraining_data as an Apache Beam pipeline: `--num_workers` mode's
examples, on any runner.

One reader cuts the corpus into the sharded mode's shards, `Reshuffle`
spreads them over the workers, `parallel.shard_records` makes each shard's
records, and each shard is written consecutively into one file
PREFIX-SSSSS-of-NNNNN. The examples (and each shard's order) are the
sharded mode's; only their placement in files differs
(docs/pretraining_data.md, "Beam pipeline").
"""

import time

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.options.pipeline_options import PipelineOptions
from absl import logging

from bert_tf2.beam import argv as argv_lib
from bert_tf2.beam import corpus
from bert_tf2.beam import records_sink
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import parallel
from bert_tf2.pretraining_data import stages


class ShardRecords(beam.DoFn):
  """(index, documents) -> (index, records) by `parallel.shard_records`."""

  def __init__(self, tokenizer, options):
    super().__init__()
    self._tokenizer = tokenizer
    self._options = options
    self._tokenize_ids = None

  def setup(self):
    self._tokenize_ids = parallel.shard_tokenize_ids(self._tokenizer,
                                                     self._options)

  def make(self, index, document_lines):
    """(records, stats dict) of one shard: the sharded mode's function."""
    return parallel.shard_records(index, document_lines, self._tokenizer,
                                  self._options, self._tokenize_ids)

  def process(self, shard):
    index, document_lines = shard
    records, stats = self.make(index, document_lines)
    yield beam.pvalue.TaggedOutput(corpus.STATS, {
        name: value for name, value in stats.items()
        if name not in corpus.READER_STATS})
    if records:
      yield index, records


def _sum_stats(dicts):
  total = {}
  for counts in dicts:
    for name, value in counts.items():
      total[name] = total.get(name, 0) + value
  return total


def _count(total):
  for name, value in total.items():
    Metrics.counter(corpus.NAMESPACE, name).inc(value)


class CountStats(beam.PTransform):
  """Stats dicts -> the run's Metrics counters, counted once.

  The counts travel as data: a retried bundle's output is dropped, while
  counters incremented inside a failed bundle are kept by some runners.
  """

  def expand(self, stats):
    return (stats
            | "Sum" >> beam.CombineGlobally(_sum_stats)
            | "Count" >> beam.Map(_count))


class CreatePretrainingData(beam.PTransform):
  """PBegin -> the written file names: the whole run as one transform
  (arguments as `run`'s)."""

  def __init__(self, input_files, output_prefix, tokenizer, options,
               num_output_files=0, shard_fn=None):
    super().__init__()
    self._input_files = list(input_files)
    self._output_prefix = output_prefix
    self._num_output_files = num_output_files
    self._shard_fn = shard_fn or ShardRecords(tokenizer, options)
    self._shard_documents = options.shard_documents

  def expand(self, pbegin):
    shards, read_stats = pbegin | "ReadShards" >> corpus.ReadShards(
        self._input_files, self._shard_documents)
    made = shards | "ShardRecords" >> beam.ParDo(self._shard_fn).with_outputs(
        corpus.STATS, main="records")
    _ = ((read_stats, made[corpus.STATS])
         | "AllStats" >> beam.Flatten() | "CountStats" >> CountStats())
    return made.records | "Write" >> records_sink.write_shards(
        self._output_prefix, self._num_output_files)


def _stats_of(result):
  """The CorpusStats of a finished pipeline, from its counters."""
  stats = documents_lib.CorpusStats()
  query = result.metrics().query(MetricsFilter().with_namespace(
      corpus.NAMESPACE))
  for counter in query["counters"]:
    name = counter.key.metric.name
    value = counter.committed
    if value is None:  # A runner that keeps attempted counts only.
      value = counter.attempted
    setattr(stats, name, getattr(stats, name) + value)
  return stats


def run(input_files, output_prefix, tokenizer, options, pipeline_args=(),
        num_output_files=0, shard_fn=None):
  """Runs the pipeline to the end; returns the CorpusStats.

  Args:
    input_files: list of corpus paths (any Beam filesystem), in order.
    output_prefix: str, output path prefix.
    tokenizer: tokenization.FullTokenizer.
    options: DataOptions (num_workers is not used).
    pipeline_args: Beam pipeline options, e.g. ["--runner=DirectRunner"].
    num_output_files: int, 0 = the runner's choice.
    shard_fn: optional DoFn in place of ShardRecords (tests).

  Raises:
    InputError: bad options or vocabulary, an unreadable file (named), or a
      corpus without text.
  """
  options.validate()
  options_lib.check_vocab(tokenizer.vocab, getattr(tokenizer, "vocab_file",
                                                   "?"))
  if options.segmented_file:
    raise InputError("--segmented_file: not with a Beam runner (its lines "
                     "pair with the input's in one sequential read)")
  if num_output_files < 0:
    raise InputError("--num_output_files=%d: must be at least 0"
                     % num_output_files)
  start = time.time()
  pipeline = beam.Pipeline(options=PipelineOptions(list(pipeline_args)))
  _ = pipeline | "CreatePretrainingData" >> CreatePretrainingData(
      input_files, output_prefix, tokenizer, options, num_output_files,
      shard_fn)
  try:
    result = pipeline.run()
    result.wait_until_finish()
  except Exception as e:  # pylint: disable=broad-except
    error = argv_lib.find_input_error(e)
    if error is None:
      raise
    raise error from None
  stats = _stats_of(result)
  if not stats.instances:
    raise InputError("--input_file: no text in %s (every line is empty or "
                     "tokenizes to nothing)" % ", ".join(input_files))
  logging.info("Wrote %d total instances to %s-*", stats.instances,
               output_prefix)
  stages.log_summary(stats, time.time() - start)
  return stats
