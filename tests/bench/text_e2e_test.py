"""The raw-text benchmarks' pure parts: the warm worker's protocol, the
shared batches and table of bench_text_e2e and the comparisons of precision_quality (the
timings themselves are never tested)."""

import io
import json
import os
import sys

import numpy as np

from bench import bench_text_e2e
from bench import precision_quality
from bench import text_worker


def test_worker_times_each_policy_on_the_given_batches(monkeypatch, capsys):
  seen = []

  def answer_batch(texts):
    seen.append(list(texts))
    return [len(t) for t in texts]
  data = {"texts": ["ab", "c", "def"],
          "batches": {"sorted": [[1, 0], [2]], "input": [[0, 1], [2]]}}
  monkeypatch.setattr(sys, "stdin", io.StringIO(
      "run sorted\nbogus\nrun whole\nrun input\nquit\nrun sorted\n"))
  text_worker.serve(answer_batch, data)
  lines = capsys.readouterr().out.splitlines()
  assert lines[0] == "READY"
  results = [json.loads(l[len("RESULT "):]) for l in lines[1:]]
  # sorted, whole (no such policy here: an error), input; bogus ignored;
  # nothing after quit.
  assert [sorted(r) for r in results] == [
      ["labels", "seconds", "texts"], ["error"],
      ["labels", "seconds", "texts"]]
  assert results[0]["labels"] == results[2]["labels"] == [2, 1, 3]
  # The untimed pass of each policy, then sorted and input.
  assert seen == [["c", "ab"], ["def"], ["ab", "c"], ["def"],
                  ["c", "ab"], ["def"], ["ab", "c"], ["def"]]


def test_worker_whole_policy_is_one_call_on_all_texts(monkeypatch, capsys):
  calls = []
  whole = lambda texts: calls.append(list(texts)) or [0] * len(texts)
  monkeypatch.setattr(sys, "stdin", io.StringIO("run whole\nrun sorted\n"))
  text_worker.serve(None, {"texts": ["a", "b"], "batches": {
      "sorted": [[0, 1]]}}, whole)
  results = [json.loads(l[len("RESULT "):])
             for l in capsys.readouterr().out.splitlines()[1:]]
  assert results[0]["labels"] == [0, 0] and "error" in results[1]
  assert calls == [["a", "b"]] * 2


def test_batches_are_shared_sorted_or_in_input_order():
  lengths = [9, 3, 12, 3, 5]
  batches = bench_text_e2e.make_batches(lengths, 2)
  assert batches == {"sorted": [[1, 3], [4, 0], [2]],
                     "input": [[0, 1], [2, 3], [4]]}
  for policy in batches.values():  # Every text once.
    assert sorted(i for b in policy for i in b) == list(range(5))
  assert bench_text_e2e.padded_positions(lengths, batches["sorted"]) == (
      2 * 3 + 2 * 9 + 12)
  assert bench_text_e2e.padded_positions(lengths, batches["input"]) == (
      2 * 9 + 2 * 12 + 5)


def test_summary_ratios_agreement_and_accuracy():
  res = lambda labels, *secs: [{"texts": 4, "seconds": s, "labels": labels}
                               for s in secs]
  rows, best = bench_text_e2e.summary_rows(
      {"ours_textmodel_float32": res([0, 1, 1, 0], 1.0, 2.0, 1.0),
       "ours_predictor_int8": res([0, 1, 0, 0], 0.5, 0.5, 1.0),
       "hf_float32": res([0, 1, 1, 0], 2.0, 2.0, 4.0), "keras_hub_float32": []},
      ["ours_textmodel_float32", "ours_predictor_int8", "hf_float32",
       "keras_hub_float32"], "ours_textmodel_float32", [0, 1, 1, 1])
  # int8 is the fastest of ours but misses both classifier gates (75% of
  # the labels, accuracy -25 points): the ratio is against float32's.
  assert best == "ours_textmodel_float32"
  both = ("fails: accuracy within 0.3 point of float32; "
          "same label as float32 >= 99.5%")
  assert rows == [
      ("ours_textmodel_float32", "4.0", "4.0 2.0 4.0", "1.00x", "100.0%",
       "0.750", "pass"),
      ("ours_predictor_int8", "8.0", "8.0 8.0 4.0", "0.50x", "75.0%",
       "0.500", both),
      ("hf_float32", "2.0", "2.0 2.0 1.0", "2.00x", "100.0%", "0.750",
       "pass"),
      ("keras_hub_float32", "no result", "", "", "", "", "")]
  # Without the dev labels there is no gate, and the fastest is the best.
  rows, best = bench_text_e2e.summary_rows(
      {"ours_textmodel_float32": res([0, 1, 1, 0], 1.0, 2.0, 1.0),
       "ours_predictor_int8": res([0, 1, 0, 0], 0.5, 0.5, 1.0)},
      ["ours_textmodel_float32", "ours_predictor_int8"],
      "ours_textmodel_float32")
  assert best == "ours_predictor_int8" and rows[1][-2:] == ("", "")


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
  texts, labels = bench_text_e2e.read_texts(argparse.Namespace(
      corpus="bbc", articles=3))
  assert labels is None
  dev = [body for split, _, _, body in tasks_bbc.articles()
         if split == "dev"]
  assert texts == [" ".join(body) for body in dev[:3]]
  # Long enough to need several 128-piece windows each.
  assert all(len(t.split()) > 150 for t in texts), [
      len(t.split()) for t in texts]


def test_hf_weights_writes_ours_in_hugging_face_names(tmp_path):
  import safetensors.numpy  # pylint: disable=g-import-not-at-top
  from bench import text_peers  # pylint: disable=g-import-not-at-top
  from modeling import checkpoint_writer  # pylint: disable=g-import-not-at-top
  rng = np.random.RandomState(0)
  ours = {"bert/encoder/layer_0/attention/self/query/kernel": rng.rand(3, 2),
          "bert/encoder/layer_0/attention/self/query/bias": rng.rand(2),
          "bert/embeddings/word_embeddings": rng.rand(5, 3),
          "output_weights": rng.rand(2, 3), "output_bias": rng.rand(2)}
  ours = {k: v.astype(np.float32) for k, v in ours.items()}
  prefix = checkpoint_writer.write_checkpoint(ours, str(tmp_path / "ckpt"))
  # MiniLM's file only names the tensors (shapes and values unused).
  safetensors.numpy.save_file(
      {"encoder.layer.0.attention.self.query.weight": np.zeros([1]),
       "encoder.layer.0.attention.self.query.bias": np.zeros([1]),
       "embeddings.word_embeddings.weight": np.zeros([1]),
       "embeddings.position_ids": np.zeros([1])},
      str(tmp_path / "model.safetensors"))
  out = np.load(text_peers.hf_weights(prefix, str(tmp_path),
                                      str(tmp_path / "hf.npz")))
  assert sorted(out) == sorted([
      "bert.encoder.layer.0.attention.self.query.weight",
      "bert.encoder.layer.0.attention.self.query.bias",
      "bert.embeddings.word_embeddings.weight",
      "classifier.weight", "classifier.bias"])
  # A torch Linear's weight is [out, in]: the kernel transposed.
  np.testing.assert_array_equal(
      out["bert.encoder.layer.0.attention.self.query.weight"],
      ours["bert/encoder/layer_0/attention/self/query/kernel"].T)
  np.testing.assert_array_equal(out["bert.embeddings.word_embeddings.weight"],
                                ours["bert/embeddings/word_embeddings"])
  np.testing.assert_array_equal(out["classifier.weight"],
                                ours["output_weights"])


def test_finetune_once_reuses_a_finished_run(tmp_path, monkeypatch):
  calls = []
  monkeypatch.setattr(precision_quality.bench_real_text, "_script",
                      lambda name, flags, log: calls.append(
                          (name, flags, log)) or (1.0, 2.0))
  out = str(tmp_path / "ner")
  precision_quality.finetune_once("run_ner", ["--do_train=true"], out)
  assert calls == [("run_ner", ["--do_train=true", "--output_dir=" + out],
                    out + ".log")]
  os.makedirs(out)
  (tmp_path / "ner" / "model.json").write_text("{}")
  precision_quality.finetune_once("run_ner", ["--do_train=true"], out)
  assert len(calls) == 1  # The finished run is reused.


def test_a_misspelt_variant_is_refused_in_one_line(monkeypatch, capsys):
  monkeypatch.setattr(sys, "argv", [
      "bench_text_e2e", "--finetuned_dir=unused",
      "--variants=hf_freeze_eager_bfloat16,hf_freeze_eagr_bfloat16"])
  try:
    bench_text_e2e.main()
    raise AssertionError("a misspelt variant was accepted")
  except SystemExit as stop:
    assert stop.code == 2
  error = capsys.readouterr().err.strip().splitlines()[-1]
  assert "--variants/--policies: unknown hf_freeze_eagr_bfloat16;" in error
  # The eager-attention variants are known (only the misspelling named).
  assert "unknown hf_freeze_eager_bfloat16" not in error
  for name in ("hf_compile_eager_float32", "hf_compile_eager_bfloat16",
               "hf_freeze_eager_float32", "hf_freeze_eager_bfloat16"):
    assert name in bench_text_e2e.VARIANTS
