"""Raw text through `load_predictor` against the bare task model (issue 64 item 5).

  python -m bench.bench_predict_path --output_dir=RUN   # a classifier run

Four ways over the same texts (dev sentences), interleaved per round:

  predictor, sorted     `models.load_predictor(RUN).predict(texts)`: the
                        default, shortest first, answers in input order
  predictor, unsorted   the same with the text model's
                        `sort_by_length = False` (input order)
  predictor, per batch  `predict(batch)` on each batch of the sorted
                        texts, one call a batch (what a server or a user's
                        own loop does: every call's overhead paid)
  bare model            the text model's task model alone, one traced
                        function (below float32 with its dense weights as
                        constants, `frozen_weights.FrozenStep`, as the
                        text model's `predict` runs it, in its parts), on
                        the token ids of the sorted path's batches,
                        tokenized beforehand
                        (no tokenizer, no answer naming, no batching work)

Each row gives sentences per second and the token positions it computed
(batch x its trimmed length, summed); the bare model's rate at the sorted
path's token count is the ceiling the predictor is held to.
"""

import argparse
import csv
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tensorflow as tf  # pylint: disable=g-import-not-at-top,wrong-import-position

from bert_tf2 import models  # pylint: disable=g-import-not-at-top,wrong-import-position
from bert_tf2.common import batch_parts  # pylint: disable=g-import-not-at-top,wrong-import-position
from bert_tf2.common import example_order  # pylint: disable=g-import-not-at-top,wrong-import-position
from bert_tf2.common import frozen_weights  # pylint: disable=g-import-not-at-top,wrong-import-position


def read_texts(path, n):
  """The first n sentences of a tsv with a "sentence" column."""
  with open(path, encoding="utf-8") as f:
    rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
  return [r["sentence"] for r in rows][:n]


def feature_batches(model, texts, batch_size):
  """The task features of each batch of texts, as the text model runs
  them (tokenized, trimmed to the batch's longest)."""
  out = []
  for i in range(0, len(texts), batch_size):
    features = model.preprocessor(tf.constant(texts[i:i + batch_size]))
    out.append(model.task_features(features))
  return out


def positions(batches):
  """Token positions computed over feature batches."""
  return sum(int(b["input_ids"].shape[0]) * int(b["input_ids"].shape[1])
             for b in batches)


def cpu_model():
  """The CPU's model name and whether it has AVX-512 / AVX512-BF16."""
  with open("/proc/cpuinfo", encoding="utf-8") as f:
    info = f.read()
  name = next((l.split(":", 1)[1].strip() for l in info.splitlines()
               if l.startswith("model name")), "unknown CPU")
  return "%s, %d cores usable, avx512f %s, avx512_bf16 %s" % (
      name, len(os.sched_getaffinity(0)), " avx512f " in info,
      " avx512_bf16 " in info)


def main():
  p = argparse.ArgumentParser(
      description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--output_dir", required=True, help="a classifier run")
  p.add_argument("--data", default=os.path.join(
      ROOT, "data", "movie_reviews", "dev.tsv"))
  p.add_argument("--texts", type=int, default=1000)
  p.add_argument("--batch_size", type=int, default=32)
  p.add_argument("--rounds", type=int, default=3)
  p.add_argument("--precision", default="float32")
  args = p.parse_args()
  texts = read_texts(args.data, args.texts)
  predictor = models.load_predictor(args.output_dir,
                                    precision=args.precision,
                                    batch_size=args.batch_size)
  model = predictor.model
  order = example_order.length_order(texts, model.example_lengths(texts))
  sorted_texts = example_order.take(texts, order)
  sorted_batches = feature_batches(model, sorted_texts, args.batch_size)
  counts = {"predictor, sorted": positions(sorted_batches),
            "predictor, unsorted": positions(
                feature_batches(model, texts, args.batch_size)),
            "predictor, per batch": positions(sorted_batches),
            "bare model": positions(sorted_batches)}
  # In parts as `predict` runs them (one a core: the loader set this
  # process to one op a core; `batch_parts`).
  parts = batch_parts.predict_parts(model.task.compute_dtype)
  forward = lambda f: batch_parts.in_parts(
      lambda g: model.task(g, training=False), f, parts)
  if args.precision == "float32":
    bare = tf.function(forward, reduce_retracing=True)
  else:  # As the text model's predict runs it: weights as constants.
    spec = tf.nest.map_structure(
        lambda t: tf.TensorSpec([None] * t.shape.rank, t.dtype),
        sorted_batches[0])
    bare = frozen_weights.FrozenStep(model.task, forward, spec)
  text_batches = [sorted_texts[i:i + args.batch_size]
                  for i in range(0, len(sorted_texts), args.batch_size)]

  def run_bare():
    for b in sorted_batches:
      bare(b)

  def run_predictor(sort):
    model.sort_by_length = sort
    predictor.predict(texts)

  def run_per_batch():
    model.sort_by_length = True
    for batch in text_batches:
      predictor.predict(batch)

  ways = {"predictor, sorted": lambda: run_predictor(True),
          "predictor, unsorted": lambda: run_predictor(False),
          "predictor, per batch": run_per_batch,
          "bare model": run_bare}
  for way in ways.values():  # Warm-up: traces, caches.
    way()
  seconds = {name: [] for name in ways}
  for _ in range(args.rounds):
    for name, way in ways.items():
      start = time.perf_counter()
      way()
      seconds[name].append(time.perf_counter() - start)
  print(cpu_model())
  print("%d texts, batch %d, %s, %d rounds interleaved (median)"
        % (len(texts), args.batch_size, args.precision, args.rounds))
  print("| way | sentences/s | token positions | positions/s |")
  print("|---|---:|---:|---:|")
  for name, values in seconds.items():
    median = statistics.median(values)
    print("| %s | %.1f | %d | %.0f |" % (name, len(texts) / median,
                                         counts[name], counts[name] / median))


if __name__ == "__main__":
  main()
