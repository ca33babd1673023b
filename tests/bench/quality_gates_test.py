"""The quality gates fail where they should, and hold on real weights.

The gates' bounds (bench/quality_gates.py) are checked on each side of
each bound; then the sentence-vector gate is applied to the real
all-MiniLM-L6-v2 weights in every lower precision that the two vector
paths offer (the `FeatureEncoder` on the converted checkpoint and
`SentenceEncoder.from_dir` on the pretrained directory), with a control:
vectors of texts cut to 8 tokens fail the same gate.
"""

import csv
import os
import shutil

import numpy as np
import pytest

from bench import quality_gates
from bert_tf2.embedding import encoder as encoder_lib
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.scripts.quickstart import minilm_dir
from modeling import hf_import

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# Each gate's measurement just inside and just outside its bound.
EDGES = {
    ("classifier", "accuracy_delta"): (-0.003, 0.0031),
    ("classifier", "same_label"): (0.995, 0.9949),
    ("ner", "f1_delta"): (0.003, -0.0031),
    ("squad", "f1_delta_points"): (-0.5, -0.51),
    ("multiple choice", "accuracy_delta"): (0.005, -0.0051),
    ("sentence vectors", "cosine_min"): (0.999, 0.9989),
}


def test_every_gate_is_tested_on_both_sides_of_its_bound():
  gated = {(task, g.measure) for task, gates in quality_gates.GATES.items()
           for g in gates}
  assert gated == set(EDGES)


@pytest.mark.parametrize("task,measure", sorted(EDGES))
def test_a_gate_passes_inside_and_fails_outside(task, measure):
  inside, outside = EDGES[(task, measure)]
  others = {g.measure: EDGES[(task, g.measure)][0]
            for g in quality_gates.GATES[task]}
  ok = quality_gates.judge(task, "bfloat16", others)
  assert all(v.passed for v in ok) and not quality_gates.failures(ok)
  bad = quality_gates.judge(task, "bfloat16", dict(others, **{measure:
                                                              outside}))
  assert [v.measured for v in quality_gates.failures(bad)] == [outside]


def test_a_declared_loss_is_shown_but_does_not_fail_the_run():
  verdicts = quality_gates.judge("sentence vectors", "int8",
                                 {"cosine_min": 0.969})
  assert not verdicts[0].passed and verdicts[0].declared_loss
  assert quality_gates.failures(verdicts) == []
  assert "declared loss" in quality_gates.table(verdicts)[-1]
  # The same loss in a precision not declared fails.
  assert quality_gates.failures(quality_gates.judge(
      "sentence vectors", "float16", {"cosine_min": 0.969}))


def test_a_missing_measurement_is_an_error_not_a_pass():
  with pytest.raises(KeyError):
    quality_gates.judge("classifier", "bfloat16", {"same_label": 1.0})


def _dev_sentences(n):
  path = os.path.join(ROOT, "data", "movie_reviews", "dev.tsv")
  with open(path, encoding="utf-8") as f:
    rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
  # The longest ones: most round-off, and longer than the control's 8.
  return sorted((r["sentence"] for r in rows), key=len)[-n:]


def _cosine_min(a, b):
  return float(((a * b).sum(-1) / (np.linalg.norm(a, axis=-1) *
                                    np.linalg.norm(b, axis=-1))).min())


@pytest.fixture(scope="module")
def minilm_checkpoint(tmp_path_factory):
  """The real all-MiniLM-L6-v2, converted to the original's format."""
  out = str(tmp_path_factory.mktemp("minilm") / "ckpt")
  hf_import.convert_hf_checkpoint(minilm_dir(), out)
  shutil.copy(os.path.join(minilm_dir(), "vocab.txt"), out)
  return [os.path.join(out, f) for f in ("bert_config.json",
                                         "bert_model.ckpt", "vocab.txt")]


def test_feature_encoder_precisions_pass_the_vector_gate(minilm_checkpoint):
  texts = _dev_sentences(24)

  def vectors(precision, max_seq_length=128):
    encoder = FeatureEncoder(*minilm_checkpoint, precision=precision,
                             max_seq_length=max_seq_length, batch_size=8)
    return encoder.sentence_vectors(texts)[:, 0]

  ref = vectors("float32")
  lower = [p for p in FeatureEncoder.precisions
           if p not in ("auto", "float32", "int8")]
  assert lower, FeatureEncoder.precisions
  verdicts = [v for p in lower for v in quality_gates.judge(
      "sentence vectors", p, {"cosine_min": _cosine_min(ref, vectors(p))},
      "FeatureEncoder")]
  # Control: the gate tells other vectors apart (the texts cut to 8).
  cut = quality_gates.judge("sentence vectors", "float32", {
      "cosine_min": _cosine_min(ref, vectors("float32", 8))}, "cut to 8")
  print("\n".join(quality_gates.table(verdicts + cut)))
  assert not quality_gates.failures(verdicts), quality_gates.table(verdicts)
  assert quality_gates.failures(cut)


def test_sentence_encoder_precisions_pass_the_vector_gate():
  texts = _dev_sentences(24)
  ref = SentenceEncoder.from_dir(minilm_dir(), precision="float32")
  ref_vectors = np.asarray(ref.encode(texts, batch_size=8))
  verdicts = []
  lower = [p for p in encoder_lib.PRECISIONS if p not in ("auto", "float32")]
  assert lower, encoder_lib.PRECISIONS
  for p in lower:
    got = SentenceEncoder.from_dir(minilm_dir(), precision=p)
    verdicts += quality_gates.judge(
        "sentence vectors", p,
        {"cosine_min": _cosine_min(ref_vectors,
                                   np.asarray(got.encode(texts,
                                                         batch_size=8)))},
        "SentenceEncoder")
  print("\n".join(quality_gates.table(verdicts)))
  assert not quality_gates.failures(verdicts), quality_gates.table(verdicts)
  cut = SentenceEncoder.from_dir(minilm_dir(), precision="float32",
                                 max_seq_length=8)
  assert quality_gates.failures(quality_gates.judge(
      "sentence vectors", "float32",
      {"cosine_min": _cosine_min(ref_vectors, np.asarray(
          cut.encode(texts, batch_size=8)))}))
