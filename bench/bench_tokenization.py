"""Benchmark (not a test): tokens/s of each tokenization path and its peers.

    python bench/bench_tokenization.py [--chars=1000000] [--repeats=3]

On the same multilingual text (tests/tokenization/corpus.py: BBC News,
movie reviews and tweets, Chinese reviews, Faker sentences in ~30 locales)
and the real all-MiniLM-L6-v2 uncased vocabulary, measures:

  original     Google's bert.tokenization.FullTokenizer (pure Python)
  reference    our FullTokenizer(cache=False)
  fast-cold    our default FullTokenizer, first pass (empty cache)
  fast-warm    our default FullTokenizer, later passes
  fast-ids     our tokenize_to_ids (pieces and ids), later passes
  in-graph     tokenization.tf_text.InGraphTokenizer in a tf.function,
               batches of 256 texts, ids materialized
  hf-tokenizers  Hugging Face `tokenizers` BertWordPieceTokenizer with the
               same vocab and options, encode_batch (Rust, multi-threaded)

Prints a table: seconds, word pieces per second, ratio to the original. Each
path's token count is printed too (they tokenize the same text; counts of
the original, reference, fast and in-graph must be equal). The machine may be
shared: numbers are noisy, the best of --repeats runs is reported.
"""

import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bert import tokenization as original  # pylint: disable=g-import-not-at-top,wrong-import-position
from absl import flags  # pylint: disable=g-import-not-at-top,wrong-import-position

import tokenization  # pylint: disable=g-import-not-at-top,wrong-import-position
from tests.tokenization import corpus  # pylint: disable=g-import-not-at-top,wrong-import-position
from tests.tokenization.conftest import minilm_vocab_path  # pylint: disable=g-import-not-at-top,wrong-import-position


def _best(fn, repeats):
  best, result = None, None
  for _ in range(repeats):
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
  return best, result


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--chars", type=int, default=1_000_000)
  parser.add_argument("--repeats", type=int, default=3)
  args = parser.parse_args()
  flags.FLAGS(["bench"], known_only=True)  # The original reads a flag.

  vocab = minilm_vocab_path()
  texts = corpus.build_corpus(args.chars)
  n_chars = sum(len(t) for t in texts)
  rows = []

  def count(tokenize):
    return sum(len(tokenize(t)) for t in texts)

  orig = original.FullTokenizer(vocab_file=vocab, do_lower_case=True)
  rows.append(("original",) + _best(lambda: count(orig.tokenize), 1))

  ref = tokenization.FullTokenizer(vocab, do_lower_case=True, cache=False)
  rows.append(("reference",) + _best(lambda: count(ref.tokenize), 1))

  cold = []

  def fast_cold():
    tok = tokenization.FullTokenizer(vocab, do_lower_case=True)
    cold.append(tok)
    return count(tok.tokenize)
  rows.append(("fast-cold",) + _best(fast_cold, args.repeats))
  fast = cold[-1]
  rows.append(("fast-warm",) + _best(lambda: count(fast.tokenize),
                                      args.repeats))
  rows.append(("fast-ids",) + _best(lambda: count(fast.tokenize_to_ids),
                                     args.repeats))

  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from tokenization import tf_text  # pylint: disable=g-import-not-at-top
  graph = tf_text.InGraphTokenizer(vocab, do_lower_case=True)
  fn = tf.function(lambda t: graph.tokenize(t).flat_values,
                   input_signature=[tf.TensorSpec([None], tf.string)])
  batches = [tf.constant([t.encode("utf-8") for t in texts[i:i + 256]])
             for i in range(0, len(texts), 256)]
  fn(batches[0])  # Trace once.
  rows.append(("in-graph",) + _best(
      lambda: sum(int(fn(b).shape[0]) for b in batches), args.repeats))

  try:
    from tokenizers import BertWordPieceTokenizer  # pylint: disable=g-import-not-at-top
  except ImportError:
    BertWordPieceTokenizer = None
  if BertWordPieceTokenizer is not None:
    hf = BertWordPieceTokenizer(vocab, lowercase=True, strip_accents=None,
                                clean_text=True, handle_chinese_chars=True,
                                wordpieces_prefix="##")
    rows.append(("hf-tokenizers",) + _best(
        lambda: sum(len(e.ids) for e in hf.encode_batch(
            texts, add_special_tokens=False)), args.repeats))

  base = rows[0][2] / rows[0][1]
  print("%d texts, %d characters, vocab %s (uncased), cpus=%d" % (
      len(texts), n_chars, os.path.basename(os.path.dirname(
          os.path.dirname(vocab))), os.cpu_count()))
  print("| path | seconds | word pieces | pieces/s | vs original |")
  print("|---|---:|---:|---:|---:|")
  for name, seconds, tokens in rows:
    rate = tokens / seconds
    print("| %s | %.3f | %d | %.0f | %.1fx |" % (
        name, seconds, tokens, rate, rate / base))


if __name__ == "__main__":
  main()
