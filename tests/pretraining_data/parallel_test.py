"""The sharded multi-process mode: deterministic, valid, streaming."""

import os

import pytest

import tokenization
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import parallel
from bert_tf2.pretraining_data import pipeline
from tests.pretraining_data import checks
from tests.pretraining_data import corpus
from tests.pretraining_data import records


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
  root = tmp_path_factory.mktemp("parallel")
  paths = [
      corpus.write_corpus(str(root / "bbc.txt"),
                          corpus.bbc_documents(30000, start=600)),
      corpus.write_corpus(str(root / "movies.txt"),
                          corpus.movie_review_documents(15000))]
  tokenizer = tokenization.FullTokenizer(corpus.minilm_vocab())
  return root, paths, tokenizer


def _run(setup, name, num_workers, shard_documents=12, seed=3, outputs=1):
  root, paths, tokenizer = setup
  out = [str(root / ("%s_%d.tfrecord" % (name, i))) for i in range(outputs)]
  opts = options_lib.DataOptions(
      num_workers=num_workers, shard_documents=shard_documents,
      random_seed=seed, dupe_factor=2, max_seq_length=64,
      max_predictions_per_seq=10, log_examples=2)
  stats = pipeline.run(paths, out, tokenizer, opts)
  data = b"".join(open(p, "rb").read() for p in out)
  return stats, data, out


def test_same_seed_and_workers_give_same_bytes(setup):
  stats_a, data_a, _ = _run(setup, "a", 2)
  stats_b, data_b, _ = _run(setup, "b", 2)
  assert data_a == data_b and stats_a.to_dict() == stats_b.to_dict()
  # Shards do not depend on the number of processes.
  _, data_c, _ = _run(setup, "c", 3)
  assert data_c == data_a
  # Another seed or shard size gives other instances.
  _, data_d, _ = _run(setup, "d", 2, seed=4)
  _, data_e, _ = _run(setup, "e", 2, shard_documents=25)
  assert data_d != data_a and data_e != data_a


def test_spawned_workers_give_the_same_bytes(setup, monkeypatch):
  # macOS/Windows use spawn (the tokenizer is pickled into the workers).
  import multiprocessing
  _, forked, _ = _run(setup, "fork", 2)
  monkeypatch.setattr(parallel, "_context",
                      lambda: multiprocessing.get_context("spawn"))
  _, spawned, _ = _run(setup, "spawn", 2)
  assert spawned == forked


def test_sharded_instances_are_valid_and_cover_corpus(setup):
  _, paths, tokenizer = setup
  stats, _, out = _run(setup, "v", 2, outputs=2)
  examples, split = records.read_all(out)
  assert len(examples) == stats.instances and abs(split[0] - split[1]) <= 1
  masked = 0
  for ex in examples:
    _, k = checks.check_instance(ex, 64, 10, len(tokenizer.vocab),
                                 tokenizer.vocab["[CLS]"],
                                 tokenizer.vocab["[SEP]"])
    masked += k
  assert masked == stats.masked_tokens
  single = documents.CorpusStats()
  docs = documents.read_documents(paths, tokenizer.tokenize_to_ids, single)
  assert stats.documents == len(docs)
  assert stats.tokens == single.tokens
  # Each document is used dupe_factor times: about as many instances as the
  # original's single-process algorithm makes.
  single_stats = pipeline.run(paths, [out[0] + ".single"], tokenizer,
                              options_lib.DataOptions(
                                  dupe_factor=2, max_seq_length=64,
                                  max_predictions_per_seq=10, log_examples=0))
  assert abs(stats.instances - single_stats.instances) < (
      0.1 * single_stats.instances)


def test_iter_shards_streams_and_merges_small_tail():
  def docs(n):
    for i in range(n):
      yield ["doc %d" % i]
  shards = list(parallel.iter_shards(docs(24), 10))
  assert [len(s) for s in shards] == [10, 14]
  assert [d for s in shards for d in s] == list(docs(24))
  assert [len(s) for s in parallel.iter_shards(docs(25), 10)] == [10, 10, 5]
  assert [len(s) for s in parallel.iter_shards(docs(3), 10)] == [3]
  assert list(parallel.iter_shards(docs(0), 10)) == []
  # A generator: shards come out before the input is exhausted.
  stream = parallel.iter_shards(docs(10 ** 9), 10)
  assert len(next(stream)) == 10


def test_worker_failure_leaves_no_output(setup, monkeypatch):
  root, paths, tokenizer = setup
  real = documents.tokenize_document

  def failing(lines, tokenize_ids, stats):
    if any("Kansas" in line or "the" in line for line in lines):
      raise RuntimeError("worker crashed")
    return real(lines, tokenize_ids, stats)

  # Workers are forked, so they see the patched function.
  monkeypatch.setattr(documents, "tokenize_document", failing)
  out = str(root / "failed.tfrecord")
  with pytest.raises(RuntimeError, match="worker crashed"):
    pipeline.run(paths, [out], tokenizer, options_lib.DataOptions(
        num_workers=2, shard_documents=12, dupe_factor=1, log_examples=0))
  assert not [n for n in os.listdir(root) if n.startswith("failed")]


def test_sharded_empty_corpus_is_an_input_error(setup, tmp_path):
  _, _, tokenizer = setup
  empty = tmp_path / "empty.txt"
  empty.write_text("\n\n  \n\x00\n")
  out = str(tmp_path / "out.tfrecord")
  with pytest.raises(InputError, match="no text"):
    pipeline.run([str(empty)], [out], tokenizer,
                 options_lib.DataOptions(num_workers=2, log_examples=0))
  assert os.listdir(tmp_path) == ["empty.txt"]
