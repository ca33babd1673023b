"""The raw-text benchmarks' pure parts: the warm worker's protocol, the
table of bench_text_e2e and the comparisons of precision_quality (the
timings themselves are never tested)."""

import io
import json
import sys

import numpy as np

from bench import bench_text_e2e
from bench import precision_quality
from bench import text_worker


def test_worker_answers_every_text_once_per_run(monkeypatch, capsys):
  seen = []

  def answer(texts):
    seen.append(list(texts))
    return [len(t) for t in texts]
  monkeypatch.setattr(sys, "stdin", io.StringIO("run\nbogus\nrun\nquit\n"
                                                "run\n"))
  text_worker.serve(answer, ["ab", "c", "def"])
  lines = capsys.readouterr().out.splitlines()
  assert lines[0] == "READY"
  results = [json.loads(l[len("RESULT "):]) for l in lines[1:]]
  assert len(results) == 2  # Two runs before quit; bogus ignored.
  assert all(r["texts"] == 3 and r["labels"] == ["2", "1", "3"]
             for r in results)
  assert seen == [["ab", "c", "def"]] * 3  # The untimed pass, then two.


def test_summary_ratios_are_to_the_fastest_of_ours():
  res = lambda *secs: [{"texts": 100, "seconds": s} for s in secs]
  rows, best = bench_text_e2e.summary_rows(
      {"ours_predictor_float32": res(1.0, 2.0, 1.0),
       "ours_predictor_bfloat16": res(0.5, 0.5, 1.0),
       "hf_float32": res(2.0, 2.0, 4.0), "keras_hub_float32": []},
      ["ours_predictor_float32", "ours_predictor_bfloat16", "hf_float32",
       "keras_hub_float32"])
  assert best == "ours_predictor_bfloat16"
  assert rows == [
      ("ours_predictor_float32", "100.0", "100.0 50.0 100.0", "2.00x"),
      ("ours_predictor_bfloat16", "200.0", "200.0 200.0 100.0", "1.00x"),
      ("hf_float32", "50.0", "50.0 50.0 25.0", "4.00x"),
      ("keras_hub_float32", "no result", "", "")]


def test_quality_compares_with_float32():
  row = lambda label, p: {"label": label, "probabilities": np.array(p)}
  ref = [row("pos", [0.2, 0.8]), row("neg", [0.9, 0.1]),
         row("pos", [0.4, 0.6])]
  got = [row("pos", [0.25, 0.75]), row("neg", [0.9, 0.1]),
         row("neg", [0.6, 0.4])]
  acc, same, mean, top = precision_quality.compare(got, ref,
                                                   ["pos", "neg", "pos"])
  assert (acc, same) == (2 / 3, 2 / 3)
  np.testing.assert_allclose([mean, top], [0.25 / 3, 0.2])
  np.testing.assert_allclose(precision_quality.cosine(
      np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[2.0, 0.0], [1.0, 0.0]])),
                             [1.0, np.sqrt(0.5)])


def test_bbc_texts_are_whole_dev_articles():
  import argparse  # pylint: disable=g-import-not-at-top
  from bench import tasks_bbc  # pylint: disable=g-import-not-at-top
  texts = bench_text_e2e.read_texts(argparse.Namespace(corpus="bbc",
                                                       articles=3))
  dev = [body for split, _, _, body in tasks_bbc.articles()
         if split == "dev"]
  assert texts == [" ".join(body) for body in dev[:3]]
  # Long enough to need several 128-piece windows each.
  assert all(len(t.split()) > 150 for t in texts), [
      len(t.split()) for t in texts]
