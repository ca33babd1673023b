"""quickstart.py runs the five stages end to end (shortened run)."""

import csv
import json
import os
import re
import signal
import subprocess

import pytest

from bert_tf2.scripts import quickstart
from tests import warm_python
from tests.golden import REPO_ROOT


def test_new_sentences_are_not_in_the_data():
  data = os.path.join(REPO_ROOT, "data")
  with open(os.path.join(data, "corpus.txt"), encoding="utf-8") as f:
    texts = [f.read().lower()]
  for split in ("train_full", "dev"):
    with open(os.path.join(data, "movie_reviews", split + ".tsv"),
              encoding="utf-8") as f:
      texts.extend(r["sentence"].lower()
                   for r in csv.DictReader(f, delimiter="\t"))
  assert len(texts) == 1 + 8060 + 2011
  assert len(set(quickstart.NEW_SENTENCES)) >= 4
  for sentence in quickstart.NEW_SENTENCES:
    # No sentence, nor its first 6 words, occurs anywhere in the data.
    start = " ".join(sentence.lower().split()[:6])
    assert not any(start in t for t in texts), sentence


def test_minilm_dir_found_by_import_machinery():
  model = quickstart.minilm_dir()
  for name in ("config.json", "model.safetensors", "vocab.txt"):
    assert os.path.isfile(os.path.join(model, name)), name


def _results(path):
  with open(path) as f:
    return dict(l.split(" = ") for l in f.read().splitlines())


@pytest.mark.slow
def test_quickstart_runs_end_to_end(tmp_path):
  out = str(tmp_path / "qs")
  # About 2 minutes on 2 idle cores; the generous limit is for a shared
  # machine. Its own session, so that a timeout also stops the stage's
  # script that quickstart.py runs.
  # tests/warm_python.py's `python`, which its stages' processes (started
  # with sys.executable) use too: eight imports of TensorFlow saved.
  proc = subprocess.Popen(
      [warm_python.command(), "quickstart.py", "--output_dir=" + out,
       "--pretrain_steps=20", "--finetune_epochs=0.1",
       "--real_finetune_epochs=0.004",
       # Stages 1-2 on the first 150 lines of the corpus, a 1,000-piece
       # vocab, and the evaluations on the first 32 dev sentences: every
       # stage still runs its real script, for a third of the CPU time.
       "--corpus_lines=150", "--vocab_size=1000", "--dev_sentences=32"],
      cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
      text=True, start_new_session=True)
  try:
    stdout, stderr = proc.communicate(timeout=1800)
  except subprocess.TimeoutExpired:
    os.killpg(proc.pid, signal.SIGKILL)
    raise
  assert proc.returncode == 0, stdout[-3000:] + stderr[-3000:]
  for stage in ("[1/5]", "[2/5]", "[3/5]", "[4/5]", "[5/5]", "[5a]", "[5b]",
                "[5c]"):
    assert stage in stdout
  # Stage 4: 1,500 train sentences, batch 32, a tenth of an epoch.
  tiny = _results(os.path.join(out, "classifier", "eval_results.txt"))
  assert sorted(tiny) == ["eval_accuracy", "eval_loss", "global_step", "loss"]
  assert int(tiny["global_step"]) == int(1500 / 32 * 0.1)
  # Stage 5: all-MiniLM-L6-v2 on train_full.tsv, one step.
  real = _results(os.path.join(out, "minilm_classifier", "eval_results.txt"))
  assert int(real["global_step"]) == int(8060 / 32 * 0.004) == 1
  for results in (tiny, real):
    assert 0.0 <= float(results["eval_accuracy"]) <= 1.0
  summary = stdout[stdout.index("\nSummary"):]
  assert "evaluated on its first 32 sentences only" in summary
  with open(os.path.join(out, "vocab.txt"), encoding="utf-8") as f:
    assert len(f.read().splitlines()) <= 1000
  with open(os.path.join(out, "dev.tsv"), encoding="utf-8") as f:
    assert len(f.read().splitlines()) == 1 + 32
  assert "tiny BERT fine-tuned:       dev accuracy %.3f" % float(
      tiny["eval_accuracy"]) in summary
  assert "all-MiniLM-L6-v2 fine-tuned: dev accuracy %.3f" % float(
      real["eval_accuracy"]) in summary
  # Stage 5c: every new sentence printed with a label and its probability.
  lines = stdout[stdout.index("[5c]"):stdout.index("\nSummary")].splitlines()
  rows = [re.match(r"^      (neg|pos) ([01]\.\d{3})  (.+)$", l) for l in lines]
  rows = [m.groups() for m in rows if m]
  assert [r[2] for r in rows] == quickstart.NEW_SENTENCES
  for _, probability, _ in rows:
    assert 0.5 <= float(probability) <= 1.0  # The larger of two.
  with open(os.path.join(out, "new_sentences.json")) as f:
    assert [r[0] for r in json.load(f)] == [r[0] for r in rows]
  # The training logs carry the progress line the status lines show.
  with open(os.path.join(out, "logs", "3_run_pretraining.log")) as f:
    assert re.search(r"step 20/20 \(100\.0%\), [\d.e+-]+ steps/s, elapsed "
                     r"\d:\d\d:\d\d, ETA 0:00:00", f.read())
  for name in ("vocab.txt", "bert_config.json", "pretraining_data.tfrecord",
               "pretraining/model.ckpt-20.index", "minilm/bert_model.ckpt.index",
               "minilm_saved_model/saved_model.pb",
               "logs/5b_run_classifier.log"):
    assert os.path.exists(os.path.join(out, name)), name


@pytest.mark.parametrize("flag", ["--vocab_size=0", "--corpus_lines=-1",
                                  "--dev_sentences=-5"])
def test_bad_shortening_flag_is_one_error_nothing_written(tmp_path, capsys,
                                                          flag):
  out = tmp_path / "qs"
  with pytest.raises(SystemExit) as e:
    quickstart.main(["--output_dir=%s" % out, flag])
  assert e.value.code == 2
  err = capsys.readouterr().err.strip().splitlines()[-1]
  assert flag.split("=")[0] in err and "must be" in err
  assert not out.exists()
