"""Benchmark: original create_pretraining_data vs ours, on the same corpus.

    python bench/bench_pretraining_data.py [--mb 2] [--dupe_factor 10]

Builds a real corpus (BBC News articles, movie-review sentences, Chinese
reviews from installed packages), then runs, each in its own process:
the original script (bert-tensorflow's create_pretraining_data), ours in its
default original-compatible mode, and ours with --num_workers 2. Prints
instances/s (end-to-end wall time, and processing time after imports) and
peak resident memory (os.wait4's ru_maxrss: the largest single process of
the child's tree, so for --num_workers the parent or one worker, not their
sum; and that peak minus the RSS right after the imports, i.e. the memory
the data itself takes; the original imports TensorFlow, ours does not), with ratios to the original, and checks that the compatible mode wrote
the original's instances. Not a test: timings belong here, not in tests/.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)


def _child(kind, argv):
  """Runs one tool in this process; prints its processing time as JSON."""
  from absl import flags
  if kind == "original":
    # The original needs TensorFlow; imported before the clock starts. Ours
    # does not import it for local files (its wall time shows that).
    import tensorflow  # pylint: disable=unused-import,g-import-not-at-top
    from bert import create_pretraining_data as module  # pylint: disable=g-import-not-at-top
  else:
    import create_pretraining_data as module  # pylint: disable=g-import-not-at-top
  flags.FLAGS(["create_pretraining_data"] + argv)
  if kind == "original":
    module.tf.logging.set_verbosity(module.tf.logging.WARN)
  import resource  # pylint: disable=g-import-not-at-top
  base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
  start = time.time()
  module.main(None)
  print("BENCH " + json.dumps({"seconds": time.time() - start,
                               "base_mb": base_mb}))


def _build_corpus(path, megabytes):
  from tests.pretraining_data import corpus
  budget = int(megabytes * 1e6)
  docs = (corpus.bbc_documents(int(budget * 0.7)) +
          corpus.movie_review_documents(int(budget * 0.15)) +
          corpus.chinese_documents(int(budget * 0.15)))
  # The packages hold ~7 MB of such text: beyond that, the same documents
  # again (rates per instance do not depend on repetition).
  size = sum(len(s.encode("utf-8")) + 1 for doc in docs for s in doc)
  copies = max(1, -(-budget // max(size, 1)))
  docs = docs * copies
  corpus.write_corpus(path, docs)
  return len(docs), os.path.getsize(path)


def _run_measured(kind, argv):
  """Runs a child, returning (wall seconds, processing seconds, max RSS MB)."""
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
             PYTHONPATH=REPO_ROOT)
  with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
    start = time.time()
    proc = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--child", kind, "--"] +
        argv, stdout=out, stderr=err, env=env, cwd=REPO_ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.time() - start
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read().decode(), err.read().decode()
  if proc.returncode != 0:
    raise RuntimeError("%s failed:\n%s" % (kind, stderr[-3000:]))
  report = [json.loads(l[6:]) for l in stdout.splitlines()
            if l.startswith("BENCH ")][0]
  peak = usage.ru_maxrss / 1024.0
  return wall, report["seconds"], peak, peak - report["base_mb"]


def _count_and_compare(orig_path, our_path):
  import tensorflow as tf
  tf.get_logger().setLevel("ERROR")
  from tests.pretraining_data import records
  theirs = records.read_examples(orig_path)
  ours = records.read_examples(our_path)
  return len(theirs), records.first_difference(ours, theirs)


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--mb", type=float, default=2.0)
  parser.add_argument("--dupe_factor", type=int, default=10)
  parser.add_argument("--max_seq_length", type=int, default=128)
  parser.add_argument("--workdir", default=None)
  args = parser.parse_args()
  from tests.pretraining_data import corpus
  workdir = args.workdir or tempfile.mkdtemp(prefix="bench_pretraining_")
  text = os.path.join(workdir, "corpus.txt")
  num_docs, size = _build_corpus(text, args.mb)
  common = ["--input_file=" + text, "--vocab_file=" + corpus.minilm_vocab(),
            "--do_lower_case=True",
            "--max_seq_length=%d" % args.max_seq_length,
            "--max_predictions_per_seq=20", "--masked_lm_prob=0.15",
            "--random_seed=12345", "--dupe_factor=%d" % args.dupe_factor]
  runs = [("original", "original", []),
          ("ours (compatible, 1 process)", "ours", []),
          ("ours --num_workers 2", "ours", ["--num_workers=2"])]
  results = []
  for i, (name, kind, extra) in enumerate(runs):
    out = os.path.join(workdir, "out%d.tfrecord" % i)
    wall, seconds, rss, data_mb = _run_measured(
        kind, common + ["--output_file=" + out] + extra)
    results.append((name, out, wall, seconds, rss, data_mb))
    sys.stderr.write("%s: %.1fs wall, %.1fs processing, %.0f MB peak, "
                     "%.0f MB above imports\n"
                     % (name, wall, seconds, rss, data_mb))
  count, diff = _count_and_compare(results[0][1], results[1][1])
  par_count = len(__import__("tests.pretraining_data.records",
                             fromlist=["x"]).read_examples(results[2][1]))
  counts = [count, count, par_count]
  base = results[0]
  print("corpus: %.1f MB, %d documents; dupe_factor=%d, max_seq_length=%d; "
        "cpus=%d, load average %.1f" % (
            size / 1e6, num_docs, args.dupe_factor, args.max_seq_length,
            os.cpu_count(), os.getloadavg()[0]))
  print("compatible mode identical to the original: %s"
        % ("yes" if diff is None else "NO: " + diff))
  print()
  print("| mode | instances | wall s | inst/s (wall) | x | processing s | "
        "inst/s (processing) | x | peak RSS MB | x | RSS above imports MB "
        "| x |")
  print("|---|---|---|---|---|---|---|---|---|---|---|---|")
  for (name, _, wall, seconds, rss, data_mb), n in zip(results, counts):
    print("| %s | %d | %.1f | %.0f | %.2f | %.1f | %.0f | %.2f | %.0f | %.2f "
          "| %.0f | %.2f |"
          % (name, n, wall, n / wall, (n / wall) / (count / base[2]),
             seconds, n / seconds, (n / seconds) / (count / base[3]), rss,
             rss / base[4], data_mb, data_mb / max(base[5], 1e-9)))


if __name__ == "__main__":
  if len(sys.argv) > 2 and sys.argv[1] == "--child":
    _child(sys.argv[2], sys.argv[4:])
  else:
    main()
