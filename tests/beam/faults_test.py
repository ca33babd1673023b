"""Faults as the engine sees them: a worker failing mid-shard is retried by
the runner and leaves exactly a clean run's examples (no duplicate, none
missing, counters counted once); a failed pipeline leaves no output file;
an unreadable input is one error line naming the file."""

import os

import pytest

import tokenization
from bert_tf2.beam import pretraining_data as beam_data
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from tests.beam import shards as shards_lib
from tests.pretraining_data import corpus

# The DirectRunner's bundle engine retries a failed bundle (up to 4 times),
# as Dataflow, Flink and Spark do; its portable engine (the default,
# `--runner=DirectRunner`) fails the pipeline on the first error.
RETRYING = ["--runner=BundleBasedDirectRunner"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
  root = tmp_path_factory.mktemp("beam_faults")
  path = corpus.write_corpus(str(root / "bbc.txt"),
                             corpus.bbc_documents(15000, start=200))
  options = options_lib.DataOptions(
      num_workers=2, shard_documents=3, random_seed=5, dupe_factor=2, max_seq_length=48,
      max_predictions_per_seq=8, log_examples=0)
  return root, [path], tokenization.FullTokenizer(corpus.minilm_vocab()), \
      options


class FailingShard(beam_data.ShardRecords):
  """Fails once (first attempt, marker file absent) or always, on one
  shard, after making that shard's records: a worker dying mid-shard."""

  def __init__(self, tokenizer, options, shard, marker=None):
    super().__init__(tokenizer, options)
    self._shard = shard
    self._marker = marker

  def process(self, shard):
    index, document_lines = shard
    if index == self._shard:
      self.make(index, document_lines)
      if self._marker is None or not os.path.exists(self._marker):
        if self._marker is not None:
          open(self._marker, "w").close()
        raise RuntimeError("injected worker failure in shard %d" % index)
    yield from super().process(shard)


def test_a_worker_failing_once_leaves_a_clean_runs_examples(setup):
  root, paths, tokenizer, options = setup
  reference = shards_lib.local_shards(paths, tokenizer, options)
  assert len(reference) >= 3
  marker = str(root / "marker_once")
  retried = str(root / "retried")
  stats = beam_data.run(
      paths, retried, tokenizer, options, RETRYING, num_output_files=2,
      shard_fn=FailingShard(tokenizer, options, shard=1, marker=marker))
  assert os.path.exists(marker)  # The failure happened.
  # Every shard whole, in order and once: a clean run's examples.
  shards_lib.beam_shard_order(retried, reference)
  assert sum(shards_lib.record_counter(retried).values()) == sum(
      len(s) for s in reference)
  # Counted once: the local mode's counts.
  local = pipeline.run(paths, [str(root / "local.tfrecord")], tokenizer,
                       options)
  assert stats.to_dict() == local.to_dict()


def test_a_failed_pipeline_leaves_no_output_file(setup):
  root, paths, tokenizer, options = setup
  prefix = str(root / "failed")
  with pytest.raises(Exception, match="injected worker failure"):
    beam_data.run(paths, prefix, tokenizer, options,
                  shards_lib.BEAM_IN_PROCESS, num_output_files=2,
                  shard_fn=FailingShard(tokenizer, options, shard=1))
  assert not shards_lib.output_files(prefix)
  assert not [n for n in os.listdir(str(root)) if n.startswith("failed")]


def test_an_unreadable_input_is_one_line_naming_it(setup):
  root, paths, tokenizer, options = setup
  missing = str(root / "gone.txt")
  with pytest.raises(InputError) as e:
    beam_data.run(paths + [missing], str(root / "bad"), tokenizer, options,
                  shards_lib.BEAM_IN_PROCESS)
  message = str(e.value)
  assert message.startswith("--input_file: cannot read %s" % missing)
  assert "\n" not in message
  empty = root / "empty.txt"
  empty.write_text("\n\n  \n")
  with pytest.raises(InputError, match="no text in %s" % empty):
    beam_data.run([str(empty)], str(root / "bad2"), tokenizer, options,
                  shards_lib.BEAM_IN_PROCESS)
