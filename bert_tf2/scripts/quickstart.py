"""The whole BERT pipeline on the small data shipped in data/, in minutes.

  ./quickstart.sh            # creates .venv, installs, then runs this

Steps (each a top-level script, exactly as a user would run it):
  1. create_vocab.py            word-piece vocab from data/corpus.txt
  2. create_pretraining_data.py masked-LM / next-sentence TFRecords
  3. run_pretraining.py         pretrain a tiny BERT (2 layers, hidden 128)
  4. run_classifier.py          fine-tune it on data/movie_reviews (pos/neg)
                                and evaluate on its dev set
Everything is written under --output_dir (default ./output/quickstart);
each step's full log is in <output_dir>/logs/. Expect a few minutes on 2
CPU cores. The numbers are a smoke test of the pipeline, not a good model:
see docs/classifier.md for a real fine-tuning result.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

# The checkout this package lives in (quickstart needs its data/ and the
# top-level scripts; run it from a checkout: ./quickstart.sh).
HERE = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

TINY_CONFIG = {
    "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
    "intermediate_size": 512, "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
    "max_position_embeddings": 128, "type_vocab_size": 2,
    "initializer_range": 0.02,
}


def _last_progress_line(log_path):
  """The message of the last absl log line (progress of the running step)."""
  try:
    with open(log_path, "rb") as f:
      f.seek(max(0, os.path.getsize(log_path) - 16384))
      lines = f.read().decode("utf-8", "replace").splitlines()
  except OSError:
    return ""
  for line in reversed(lines):
    if re.match(r"^[IWE]\d{4} [\d:.]+ +\d+ \S+\.py:\d+\] ", line):
      message = line.split("] ", 1)[1].strip()
      if message and not message.startswith(("input_ids", "input_mask",
                                             "segment_ids", "tokens")):
        return message[:110]
  return ""


def run_step(number, total, title, argv, log_dir):
  """Runs one script, shows progress every few seconds, fails loudly."""
  name = os.path.splitext(os.path.basename(argv[0]))[0]
  log_path = os.path.join(log_dir, "%d_%s.log" % (number, name))
  print("[%d/%d] %s" % (number, total, title), flush=True)
  print("      $ python %s" % " ".join(argv), flush=True)
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
  start = time.time()
  with open(log_path, "wb") as log:
    proc = subprocess.Popen([sys.executable] + argv, cwd=HERE, stdout=log,
                            stderr=subprocess.STDOUT, env=env)
    last_report = 0.0
    while proc.poll() is None:
      time.sleep(1)
      now = time.time() - start
      if now - last_report >= 10:
        last_report = now
        print("      %4.0fs  %s" % (now, _last_progress_line(log_path)),
              flush=True)
  elapsed = time.time() - start
  if proc.returncode != 0:
    with open(log_path, "rb") as f:
      tail = f.read().decode("utf-8", "replace").splitlines()[-15:]
    print("\n".join("      | " + l for l in tail))
    sys.exit("step %d (%s) failed with exit code %d; full log: %s" % (
        number, name, proc.returncode, log_path))
  print("      done in %.0fs" % elapsed, flush=True)
  return elapsed


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--output_dir", default=os.path.join(
      HERE, "output", "quickstart"))
  parser.add_argument("--pretrain_steps", type=int, default=600)
  parser.add_argument("--finetune_epochs", type=float, default=10.0)
  args = parser.parse_args()

  out = os.path.abspath(args.output_dir)
  logs = os.path.join(out, "logs")
  os.makedirs(logs, exist_ok=True)
  data = os.path.join(HERE, "data")
  corpus = os.path.join(data, "corpus.txt")
  vocab = os.path.join(out, "vocab.txt")
  config = os.path.join(out, "bert_config.json")
  records = os.path.join(out, "pretraining_data.tfrecord")
  pretrain_dir = os.path.join(out, "pretraining")
  classifier_dir = os.path.join(out, "classifier")
  seq, preds = 64, 10
  total = 4
  t0 = time.time()

  run_step(1, total, "Building a word-piece vocabulary from data/corpus.txt",
           ["create_vocab.py", "--input_file=" + corpus,
            "--output_file=" + vocab, "--vocab_size=4000",
            "--num_unused=0", "--min_count=2"], logs)
  with open(vocab, encoding="utf-8") as f:
    vocab_size = sum(1 for _ in f)
  with open(config, "w") as f:
    json.dump(dict(TINY_CONFIG, vocab_size=vocab_size), f, indent=2)
  print("      %d word pieces; tiny BERT config: %s" % (vocab_size, config))

  run_step(2, total, "Creating masked-LM / next-sentence pretraining data",
           ["create_pretraining_data.py", "--input_file=" + corpus,
            "--output_file=" + records, "--vocab_file=" + vocab,
            "--do_lower_case=true", "--max_seq_length=%d" % seq,
            "--max_predictions_per_seq=%d" % preds, "--dupe_factor=3",
            "--masked_lm_prob=0.15", "--random_seed=12345"], logs)

  steps = args.pretrain_steps
  run_step(3, total, "Pretraining a tiny BERT (%d steps)" % steps,
           ["run_pretraining.py", "--input_file=" + records,
            "--output_dir=" + pretrain_dir, "--bert_config_file=" + config,
            "--do_train=true", "--do_eval=true", "--train_batch_size=32",
            "--eval_batch_size=32", "--max_eval_steps=10",
            "--max_seq_length=%d" % seq,
            "--max_predictions_per_seq=%d" % preds,
            "--num_train_steps=%d" % steps,
            "--num_warmup_steps=%d" % (steps // 10),
            # 1e-3 made this tiny model's [CLS] output input-independent
            # (next-sentence prediction has no signal in this corpus of
            # unrelated sentences), and fine-tuning then stayed at chance.
            "--learning_rate=2e-4", "--save_checkpoints_steps=%d" % steps,
            "--iterations_per_loop=50"], logs)

  run_step(4, total, "Fine-tuning on data/movie_reviews and evaluating",
           ["run_classifier.py", "--task_name=tsv",
            "--data_dir=" + os.path.join(data, "movie_reviews"),
            "--text_a_column=sentence", "--label_column=label",
            "--vocab_file=" + vocab, "--bert_config_file=" + config,
            "--init_checkpoint=" + pretrain_dir,
            "--output_dir=" + classifier_dir, "--do_train=true",
            "--do_eval=true", "--max_seq_length=%d" % seq,
            "--train_batch_size=32", "--eval_batch_size=32",
            "--learning_rate=1e-4",
            "--num_train_epochs=%g" % args.finetune_epochs,
            "--save_checkpoints_steps=100000",
            "--iterations_per_loop=50"], logs)

  print("\nPretraining eval (%s):" % os.path.join(pretrain_dir,
                                                  "eval_results.txt"))
  path = os.path.join(pretrain_dir, "eval_results.txt")
  if os.path.exists(path):
    print("".join("  " + l for l in open(path)), end="")
  path = os.path.join(classifier_dir, "eval_results.txt")
  print("Fine-tuning eval on data/movie_reviews/dev.tsv (%s):" % path)
  print("".join("  " + l for l in open(path)), end="")
  print("Total %.0fs. Outputs in %s" % (time.time() - t0, out))


def run():
  """Console entry point: `bert-quickstart` (run from a checkout)."""
  main()


if __name__ == "__main__":
  run()
