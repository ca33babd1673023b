"""Padding trimming on real text: movie-review sentences at seq 128.

Fine-tuning steps (batch 32) and prediction (batch 32) of a MiniLM-shape
classifier through the runner (`runner.Estimator`, what run_classifier.py
runs), every batch at max_seq_length (the original) or trimmed to its
longest sentence (`--trim_padding`, the default). The two variants run
interleaved in one process (A, B, A, B, ...) so that a busy machine slows
both alike; the ratio is the result. Weights are random (speed does not
depend on them).

  python -m bench.bench_trim_padding --train_steps 20 --rounds 2

Prints the word-piece length statistics, the bucket lengths the batches
get, and one line per timed run, then the medians and ratios.
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np


def _examples(rows, prefix):
  from bert_tf2.classifier.processors import InputExample  # pylint: disable=g-import-not-at-top
  return [InputExample("%s-%d" % (prefix, i), text, None, label)
          for i, (label, text) in enumerate(rows)]


def main():
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("--max_seq_length", type=int, default=128)
  p.add_argument("--batch_size", type=int, default=32)
  p.add_argument("--train_steps", type=int, default=20)
  p.add_argument("--warmup_steps", type=int, default=2)
  p.add_argument("--predict_batch_size", type=int, default=8,
                 help="the original's default")
  p.add_argument("--predict_sentences", type=int, default=512)
  p.add_argument("--rounds", type=int, default=2)
  p.add_argument("--jit_compile", type=int, default=0)
  args = p.parse_args()

  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  import modeling  # pylint: disable=g-import-not-at-top
  import optimization  # pylint: disable=g-import-not-at-top
  import tokenization  # pylint: disable=g-import-not-at-top
  from bench.shapes import SHAPES  # pylint: disable=g-import-not-at-top
  from bert_tf2 import runner  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier import features as F  # pylint: disable=g-import-not-at-top
  from bert_research.demos import movie_reviews  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier.model import BertClassifier  # pylint: disable=g-import-not-at-top
  from bert_tf2.common import padding  # pylint: disable=g-import-not-at-top
  from tests.classifier.glue_fixtures import minilm_vocab  # pylint: disable=g-import-not-at-top

  tmp = tempfile.mkdtemp(prefix="bench_trim_")
  splits = movie_reviews.labelled_splits()
  tokenizer = tokenization.FullTokenizer(minilm_vocab(), do_lower_case=True)
  labels = ["neg", "pos"]
  paths = {}
  for name in ("train", "dev"):
    paths[name] = os.path.join(tmp, name + ".tf_record")
    F.file_based_convert_examples_to_features(
        _examples(splits[name], name), labels, args.max_seq_length,
        tokenizer, paths[name])
  lengths = np.array([min(len(tokenizer.tokenize(t)) + 2, args.max_seq_length)
                      for _, t in splits["train"]])
  print("train sentences %d, dev %d; word pieces incl. [CLS]/[SEP]: mean "
        "%.1f, median %d, p95 %d, max %d" % (
            len(splits["train"]), len(splits["dev"]), lengths.mean(),
            np.median(lengths), np.percentile(lengths, 95), lengths.max()))
  # What run_classifier uses: multiples of 8, of 16 under XLA.
  buckets = padding.bucket_lengths(args.max_seq_length,
                                   fine=not args.jit_compile)
  fn = F.file_based_input_fn_builder(paths["train"], args.max_seq_length,
                                     True, True, seed=1, trim_padding=True,
                                     buckets=buckets)
  seen = [int(b["input_ids"].shape[1]) for b in
          fn({"batch_size": args.batch_size}).take(200)]
  print("trimmed train batch lengths (200 batches, buckets %s): mean %.1f "
        "-> %.2fx fewer positions than %d" % (
            buckets, np.mean(seen), args.max_seq_length / np.mean(seen),
            args.max_seq_length))

  fn = F.file_based_input_fn_builder(paths["dev"], args.max_seq_length,
                                     False, False, trim_padding=True,
                                     buckets=buckets)
  seen = [int(b["input_ids"].shape[1]) for b in
          fn({"batch_size": args.predict_batch_size})]
  print("trimmed dev batch lengths at predict batch %d: mean %.1f -> %.2fx "
        "fewer positions" % (args.predict_batch_size, np.mean(seen),
                             args.max_seq_length / np.mean(seen)))

  config = modeling.BertConfig(**SHAPES["minilm"])
  task = runner.ModelTask(lambda: BertClassifier(config, 2))

  def estimator(out):
    run_config = runner.RunConfig(
        out, save_checkpoints_steps=None, iterations_per_loop=10,
        jit_compile=bool(args.jit_compile), handle_signals=False)
    return runner.Estimator(
        task, run_config, optimizer_fn=lambda: optimization.create_optimizer(
            2e-5, 10000, 100, use_tpu=False),
        train_batch_size=args.batch_size, eval_batch_size=args.batch_size,
        predict_batch_size=args.predict_batch_size)

  def load():
    return os.getloadavg()[0]

  results = {"train": {True: [], False: []}, "predict": {True: [], False: []}}
  ests = {}
  for trim in (True, False):
    ests[trim] = estimator(os.path.join(tmp, "out_%s" % trim))
    tf.random.set_seed(0)
    ests[trim].train(F.file_based_input_fn_builder(
        paths["train"], args.max_seq_length, True, True, seed=1,
        trim_padding=trim, buckets=buckets),
        max_steps=args.warmup_steps)  # Traces.
  n_pred = args.predict_sentences
  for r in range(args.rounds):
    for trim in (True, False):
      est = ests[trim]
      input_fn = F.file_based_input_fn_builder(
          paths["train"], args.max_seq_length, True, True, seed=2 + r,
          trim_padding=trim, buckets=buckets)
      start = time.time()
      est.train(input_fn, max_steps=est.global_step + args.train_steps)
      elapsed = time.time() - start
      rate = args.train_steps * args.batch_size / elapsed
      results["train"][trim].append(rate)
      print("round %d train   trim=%-5s %6.1f s  %6.1f seq/s  load %.1f" % (
          r, trim, elapsed, rate, load()))
    for trim in (True, False):
      base = F.file_based_input_fn_builder(
          paths["dev"], args.max_seq_length, False, False,
          trim_padding=trim, buckets=buckets)
      input_fn = lambda params, base=base: base(params).take(
          n_pred // args.predict_batch_size)
      if r == 0:  # Warm-up: traces.
        for _ in zip(range(4 * args.predict_batch_size),
                     ests[trim].predict(input_fn)):
          pass
      start = time.time()
      count = sum(1 for _ in ests[trim].predict(input_fn))
      elapsed = time.time() - start
      results["predict"][trim].append(count / elapsed)
      print("round %d predict trim=%-5s %6.1f s  %6.1f seq/s  load %.1f" % (
          r, trim, elapsed, count / elapsed, load()))
  for mode in ("train", "predict"):
    trimmed = statistics.median(results[mode][True])
    fixed = statistics.median(results[mode][False])
    print("%-7s median: trimmed %.1f seq/s, fixed %.1f seq/s, ratio %.2fx"
          % (mode, trimmed, fixed, trimmed / fixed))


if __name__ == "__main__":
  main()
