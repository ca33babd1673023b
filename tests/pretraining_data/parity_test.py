"""Parity with Google's original create_pretraining_data on real text.

Corpora are built at test time from installed packages (BBC News articles,
movie-review sentences, Chinese reviews), with the real all-MiniLM-L6-v2
uncased vocabulary, uncased and cased. The original runs once in a golden
subprocess for every case; we compare every feature of every instance.
"""

import json
import os
import random

import pytest

import tokenization
from bert_tf2.pretraining_data import compat
from bert_tf2.pretraining_data import documents
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from tests.golden import run_golden
from tests.pretraining_data import corpus
from tests.pretraining_data import records

_FLAG_DEFAULTS = dict(do_lower_case=True, max_seq_length=128,
                      max_predictions_per_seq=20, random_seed=12345,
                      dupe_factor=2, masked_lm_prob=0.15, short_seq_prob=0.1)

_EDGE_TEXT = (
    "First line with trailing spaces   \r\n"
    "Carriage\rreturns inside\r a line vanish.\n"
    "\tTabbed\u2028line with a Unicode line separator inside.\n"
    "\x00\x01\x02\n"                       # Tokenizes to nothing.
    "\u00a0\u3000\n"                       # Whitespace only: a boundary.
    "Caf\u00e9 na\u00efve \u00c5ngstr\u00f6m \u4e2d\u6587 \U0001F600 x\n"
    "Another sentence!! ...\n"
    "\n\n\n"
    "Second doc, one line only.\n"
    "  \n"
    "Third doc.\nwith two lines\n"
    "SINGLE\n\r")                      # Ends with a lone "\r".


def _random_unicode_text(seed, num_lines):
  """Deterministic messy multilingual text: scripts, marks, odd spaces."""
  rng = random.Random(seed)
  pools = [
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
      ".,;:!?'\"()[]{}-_/\\@#$%^&*+=<>|~`",
      "\u00e0\u00e9\u00ee\u00f5\u00fc\u00c5\u00df\u0107\u0161\u0142",
      "\u03b1\u03b2\u03a3\u0436\u0414\u05d0\u0627\u0915\u0e01",
      "\u4e2d\u6587\u65e5\u672c\uac00\ud55c\u3042\u30a2\uff21",
      "\u0301\u0308\u200b\u200d\ufeff\x00\x07\x1b\ufffd",
      "\U0001F600\U0001F44D\u2603\u00a9\u2122\u00bd",
      " \t\u00a0\u3000\u2028\x0b\x0c\r\x1c\x85",
  ]
  weights = [40, 8, 6, 6, 6, 3, 2, 6]
  lines = []
  for _ in range(num_lines):
    if rng.random() < 0.12:
      lines.append(rng.choice(["", " ", "\u00a0", "\r"]))
      continue
    chars = []
    for _ in range(rng.randint(1, 120)):
      pool = rng.choices(pools, weights)[0]
      chars.append(rng.choice(pool))
      if rng.random() < 0.15:
        chars.append(" ")
    lines.append("".join(chars))
  return "\n".join(lines) + "\n"


def _cases(root):
  """Builds the corpora under `root`; returns (name, case dict) pairs."""
  text_dir = os.path.join(root, "text")
  os.makedirs(text_dir)
  corpus.write_corpus(os.path.join(text_dir, "bbc.txt"),
                      corpus.bbc_documents(150000))
  # No trailing blank line: its last document continues into the next file.
  corpus.write_corpus(os.path.join(text_dir, "movies.txt"),
                      corpus.movie_review_documents(60000),
                      trailing_blank=False)
  corpus.write_corpus(os.path.join(text_dir, "zh.txt"),
                      corpus.chinese_documents(40000))
  small = corpus.write_corpus(os.path.join(root, "small.txt"),
                              corpus.bbc_documents(60000, start=1000))
  single = corpus.write_corpus(os.path.join(root, "single.txt"),
                               corpus.bbc_documents(1, start=1500))
  edge = os.path.join(root, "edge.txt")
  with open(edge, "wb") as f:
    f.write(_EDGE_TEXT.encode("utf-8"))
  # Its lone final "\r" is end of file, not a blank line: this file's first
  # lines continue edge.txt's last document.
  edge2 = os.path.join(root, "edge2.txt")
  with open(edge2, "wb") as f:
    f.write(b"continues the last document\nmore text\n\nother doc here\n")
  messy = os.path.join(root, "messy.txt")
  with open(messy, "wb") as f:
    f.write(_random_unicode_text(2024, 1500).encode("utf-8"))
  # A reordered vocabulary with a duplicate entry: random replacement words
  # follow the vocab's key order, and ids shift after the duplicate.
  with open(corpus.minilm_vocab(), encoding="utf-8") as f:
    vocab_lines = f.read().split("\n")[:-1]
  head, tail = vocab_lines[:1000], vocab_lines[1000:]
  random.Random(0).shuffle(tail)
  shuffled_vocab = os.path.join(root, "vocab_shuffled.txt")
  with open(shuffled_vocab, "w", encoding="utf-8") as f:
    f.write("\n".join(head + ["the"] + tail) + "\n")

  minilm = corpus.minilm_vocab()
  glob_all = os.path.join(text_dir, "*.txt")
  cases = [
      ("multi_file_default", dict(input_files=[glob_all])),
      ("cased_short", dict(
          input_files=[os.path.join(text_dir, "zh.txt"), glob_all],
          do_lower_case=False, max_seq_length=64, max_predictions_per_seq=10,
          short_seq_prob=0.3, masked_lm_prob=0.2, dupe_factor=1,
          random_seed=1, num_outputs=2)),
      ("long_seq", dict(
          input_files=[os.path.join(text_dir, "movies.txt")],
          max_seq_length=384, max_predictions_per_seq=60, short_seq_prob=0.0,
          random_seed=99)),
      ("edge_min_length", dict(
          input_files=[edge, edge2], max_seq_length=5, max_predictions_per_seq=1,
          masked_lm_prob=1.0, short_seq_prob=1.0, dupe_factor=3,
          random_seed=7)),
      ("single_document", dict(
          input_files=[single], max_seq_length=32, dupe_factor=3,
          random_seed=3, short_seq_prob=0.5)),
      ("messy_unicode_cased", dict(
          input_files=[messy], do_lower_case=False, max_seq_length=48,
          random_seed=2024, dupe_factor=2)),
      ("messy_unicode", dict(
          input_files=[messy], max_seq_length=96, random_seed=11,
          dupe_factor=2, short_seq_prob=0.2)),
      ("shuffled_vocab", dict(
          input_files=[small], vocab_file=shuffled_vocab, masked_lm_prob=0.5,
          max_predictions_per_seq=40, random_seed=5, num_outputs=3)),
  ]
  built = []
  for name, overrides in cases:
    case = dict(_FLAG_DEFAULTS, vocab_file=minilm)
    case.update(overrides)
    num_outputs = case.pop("num_outputs", 1)
    case["output_files"] = [os.path.join(root, "%s_orig_%d.tfrecord" % (
        name, i)) for i in range(num_outputs)]
    built.append((name, case))
  return built


@pytest.fixture(scope="module")
def golden_cases(tmp_path_factory):
  root = str(tmp_path_factory.mktemp("pretraining_parity"))
  cases = _cases(root)
  spec = os.path.join(root, "cases.json")
  with open(spec, "w") as f:
    json.dump([case for _, case in cases], f)
  counts = json.loads(run_golden("tests.golden.pretraining_data_golden", spec,
                                 timeout=900).strip().splitlines()[-1])
  return {name: (case, count) for (name, case), count in zip(cases, counts)}


def _run_ours(case, outputs):
  tokenizer = tokenization.FullTokenizer(case["vocab_file"],
                                         do_lower_case=case["do_lower_case"])
  options = options_lib.DataOptions(
      do_lower_case=case["do_lower_case"],
      max_seq_length=case["max_seq_length"],
      max_predictions_per_seq=case["max_predictions_per_seq"],
      random_seed=case["random_seed"], dupe_factor=case["dupe_factor"],
      masked_lm_prob=case["masked_lm_prob"],
      short_seq_prob=case["short_seq_prob"], log_examples=0)
  input_files = documents.expand_input_patterns(
      "input_file", ",".join(case["input_files"]))
  return pipeline.run(input_files, outputs, tokenizer, options)


@pytest.mark.golden
@pytest.mark.parametrize("name", [
    "multi_file_default", "cased_short", "long_seq", "edge_min_length",
    "single_document", "messy_unicode", "messy_unicode_cased",
    "shuffled_vocab"])
def test_same_instances_as_original(golden_cases, name):
  case, count = golden_cases[name]
  outputs = [p.replace("_orig_", "_ours_") for p in case["output_files"]]
  stats = _run_ours(case, outputs)
  assert stats.instances == count > 0
  theirs, their_split = records.read_all(case["output_files"])
  ours, our_split = records.read_all(outputs)
  assert our_split == their_split
  assert records.first_difference(ours, theirs) is None, (
      records.first_difference(ours, theirs))


@pytest.mark.golden
@pytest.mark.parametrize("name", ["shuffled_vocab", "single_document"])
def test_original_functions_give_same_instances(golden_cases, name,
                                                tmp_path):
  """pretraining_data.compat: the original's module-level functions."""
  case, count = golden_cases[name]
  tokenizer = tokenization.FullTokenizer(case["vocab_file"],
                                         do_lower_case=case["do_lower_case"])
  input_files = documents.expand_input_patterns(
      "input_file", ",".join(case["input_files"]))
  instances = compat.create_training_instances(
      input_files, tokenizer, case["max_seq_length"], case["dupe_factor"],
      case["short_seq_prob"], case["masked_lm_prob"],
      case["max_predictions_per_seq"], random.Random(case["random_seed"]))
  assert len(instances) == count
  assert all(len(i.tokens) == len(i.segment_ids) for i in instances)
  assert "tokens: [CLS]" in str(instances[0])
  outputs = [str(tmp_path / ("%d.tfrecord" % i))
             for i in range(len(case["output_files"]))]
  compat.write_instance_to_example_files(
      instances, tokenizer, case["max_seq_length"],
      case["max_predictions_per_seq"], outputs)
  theirs, _ = records.read_all(case["output_files"])
  ours, _ = records.read_all(outputs)
  assert records.first_difference(ours, theirs) is None, (
      records.first_difference(ours, theirs))
