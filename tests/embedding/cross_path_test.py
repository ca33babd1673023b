"""One answer on every path of sentence embeddings: the same raw texts
through run_embedding's --do_predict (test_results.tsv: each test anchor's
top positives, "index:cosine"), the raw-string Keras model's `predict`
(`bert_tf2.models.load(output_dir)`), `models.load_predictor(output_dir)`,
the SavedModel loaded in a fresh process that imports only tensorflow and
tensorflow_text, and the Python encoder (`SentenceEncoder.from_dir(
output_dir).encode`): the same vectors to 1e-5, hence the same ranking
and cosines. The run (a few steps at a tiny rate) uses mean pooling,
normalisation and max_seq_length 64, none of them a pretrained
directory's defaults (CLS, none, 128): nothing is re-supplied, the
output_dir's model.json gives them, and dropping any one of them from it
changes the vectors.

Inputs: a text far longer than max_seq_length (cut, embeddings do not
window), CJK, accents, (anchor, positive) pairs, and an empty text (the
script's reader refuses empty texts, so it goes through the three other
paths only)."""

import json
import os

import keras
import numpy as np
import pytest

import modeling
from bert_tf2 import models
from bert_tf2.embedding import flags as embedding_flags
from bert_tf2.embedding import search
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.embedding.job import EmbeddingJob
from bert_tf2.finetune import driver
from tests.common import cross_path

pytestmark = pytest.mark.slow
MAX_SEQ_LENGTH = 64
# Longer than 64 word pieces and than 128: the length decides its vector.
LONG = " ".join(["the cat sat on the mat , bob met ann in paris ."] * 12)
PAIRS = [(LONG, "the cat sat on the mat"), ("江泽民在北京。", "北京"),
         ("Angéla Mërkel visitéd Pâris", "ÀNN met BÖB"),
         ("a dog ran", "the dog sat"), ("bob met ann", LONG[:40])]
ANCHORS = [a for a, _ in PAIRS]
POSITIVES = [p for _, p in PAIRS]
TEXTS = ANCHORS + POSITIVES + [""]

_SERVE = """
out = serve(text=tf.constant(args["texts"]))
print("RESULT" + json.dumps(out["embeddings"].numpy().tolist()))
"""

@pytest.fixture(scope="module")
def run(bfloat16_cpu, tmp_path_factory):
  """The script's settings after --do_predict --export_dir of a checkpoint
  with widely spread weights (the cosines differ far beyond 1e-5)."""
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("embedding_paths"))
  ckpt = cross_path.spread_checkpoint(os.path.join(root, "ckpt"),
                                     modeling.BertModel)
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  for name in ("train.jsonl", "test.jsonl"):
    with open(os.path.join(data_dir, name), "w", encoding="utf-8") as f:
      for anchor, positive in PAIRS:
        f.write(json.dumps({"anchor": anchor, "positive": positive},
                           ensure_ascii=False) + "\n")
  s = embedding_flags.default_settings(
      data_dir=data_dir, vocab_file=os.path.join(ckpt, "vocab.txt"),
      bert_config_file=os.path.join(ckpt, "bert_config.json"),
      init_checkpoint=os.path.join(ckpt, "bert_model.ckpt"),
      output_dir=os.path.join(root, "out"), do_train=True, do_predict=True,
      pooling="mean", normalize=True, train_batch_size=5,
      learning_rate=1e-6, num_train_epochs=2.0,
      max_seq_length=MAX_SEQ_LENGTH, predict_batch_size=4,
      export_dir=os.path.join(root, "export"))
  driver.run(EmbeddingJob(s))
  return s, ckpt


def _script(s):
  """(ids, cosines) [len(PAIRS), len(PAIRS)] of test_results.tsv."""
  ids, scores = [], []
  with open(os.path.join(s.output_dir, "test_results.tsv")) as f:
    for line in f:
      cells = [c.split(":") for c in line.rstrip("\n").split("\t")]
      ids.append([int(i) for i, _ in cells])
      scores.append([float(v) for _, v in cells])
  return np.array(ids), np.array(scores)


def _python(directory):
  return SentenceEncoder.from_dir(directory).encode(TEXTS)


def _keras(directory):
  return models.load(directory).predict(TEXTS, verbose=0)


def _loaded(directory):
  return np.array([a["embedding"] for a in
                   models.load_predictor(directory).predict(TEXTS)])


def _saved_model(s):
  return np.array(cross_path.serve_in_fresh_process(s.export_dir, _SERVE,
                                                    {"texts": TEXTS}))


def test_every_path_gives_the_same_vectors_and_ranking(run):
  s, _ = run
  python = _python(s.output_dir)
  np.testing.assert_allclose(_keras(s.output_dir), python, atol=1e-5)
  np.testing.assert_allclose(_loaded(s.output_dir), python, atol=1e-5)
  np.testing.assert_allclose(_saved_model(s), python, atol=1e-5)
  # The script's ranking of the positives for each anchor: the same ids,
  # the same cosines, from the Python vectors.
  n = len(PAIRS)
  scores, ids = search.top_k(python[:n], python[n:2 * n], k=10)
  script_ids, script_scores = _script(s)
  np.testing.assert_array_equal(script_ids, ids)
  np.testing.assert_allclose(script_scores, scores, atol=1e-5)
  # The cosines are not all alike (a wrong vector would change them).
  assert np.ptp(scores[:, 0]) > 0.01
  # Unit vectors (normalisation), mean pooling, the run's length.
  np.testing.assert_allclose(np.linalg.norm(python[:-1], axis=1), 1.0,
                             atol=1e-5)
  encoder = SentenceEncoder.from_dir(s.output_dir)
  assert (encoder.pooling_mode, encoder.max_seq_length) == ("mean", 64)


@pytest.mark.parametrize("section,key", [
    ("model", "pooling_mode"), ("model", "normalize"),
    ("preprocessor", "max_seq_length")])
def test_dropping_a_recorded_setting_changes_the_vectors(run, tmp_path,
                                                         section, key):
  s, _ = run
  directory = cross_path.without_setting(s.output_dir, section, key,
                                         str(tmp_path / "run"))
  for path in (_python, _keras, _loaded):
    assert np.abs(path(directory) - _python(s.output_dir)).max() > 1e-3, (
        key, path.__name__)


def test_do_predict_on_the_finished_run_needs_no_other_flag(run, tmp_path):
  """`run_embedding.py --do_predict --output_dir=<run>`: every other flag is the
  record's; the predictions are the run's, byte for byte."""
  s, _ = run
  cross_path.assert_predicts_again(s.output_dir, str(tmp_path / "run"),
                                   "run_embedding.py", ["test_results.tsv"])


def test_sentence_encoder_takes_the_recorded_or_an_asked_precision(run):
  """On the faked bfloat16 CPU: the run's float32 by default; bfloat16 one
  argument away, its vectors within bfloat16 round-off (cosine 0.999)."""
  s, _ = run
  default = SentenceEncoder.from_dir(s.output_dir)
  assert default.bert.compute_dtype == "float32"
  b16 = SentenceEncoder.from_dir(s.output_dir, precision="bfloat16")
  assert b16.bert.compute_dtype == "bfloat16"
  want, got = default.encode(TEXTS), b16.encode(TEXTS)
  cosine = np.sum(want * got, -1) / (np.linalg.norm(want, axis=-1) *
                                     np.linalg.norm(got, axis=-1))
  assert np.all(cosine > 0.999), cosine
  assert not np.array_equal(want, got)
  assert models.load(s.output_dir, precision="bfloat16").task.compute_dtype \
      == "bfloat16"
