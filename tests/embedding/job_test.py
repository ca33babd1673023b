"""End to end: run_embedding's job on the driver on a tiny learnable retrieval task.

Anchors are two rare words; the positive is a sentence holding both among
other words. A 2-layer BERT from scratch with in-batch negatives learns to
retrieve it. Checks eval_results.txt, test_results.tsv, the SavedModel and
bad input.
"""

import json
import os
import random

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.embedding import flags as embedding_flags
from bert_tf2.embedding.job import EmbeddingJob
from bert_tf2.finetune import driver
from tests.classifier import tiny_task

pytestmark = pytest.mark.slow  # ~20 s of training on 2 loaded cores


def _pairs(rng, n):
  out = []
  for _ in range(n):
    key = rng.sample(tiny_task.WORDS, 2)
    filler = rng.sample(tiny_task.WORDS, 4)
    out.append({"anchor": " ".join(key),
                "positive": " ".join(filler[:2] + key + filler[2:])})
  return out


def _write_jsonl(path, objects):
  with open(path, "w", encoding="utf-8") as f:
    for obj in objects:
      f.write(json.dumps(obj) + "\n")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("emb"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(1)
  _write_jsonl(os.path.join(data_dir, "train.jsonl"), _pairs(rng, 256))
  _write_jsonl(os.path.join(data_dir, "dev.jsonl"), _pairs(rng, 30))
  test = _pairs(rng, 12)
  _write_jsonl(os.path.join(data_dir, "test.jsonl"), test)
  vocab_file = os.path.join(root, "vocab.txt")
  with open(vocab_file, "w") as f:
    f.write("\n".join(tiny_task.VOCAB) + "\n")
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(tiny_task.CONFIG, f)
  options = embedding_flags.default_settings(
      data_dir=data_dir, vocab_file=vocab_file, bert_config_file=config_file,
      output_dir=os.path.join(root, "out"), do_train=True, do_eval=True,
      do_predict=True, max_seq_length=12, train_batch_size=16,
      learning_rate=1e-3, num_train_epochs=3.0, save_checkpoints_steps=100,
      export_dir=os.path.join(root, "export"))
  driver.run(EmbeddingJob(options))
  return options, test


def test_eval_retrieval_metrics(trained):
  options, _ = trained
  with open(os.path.join(options.output_dir, "eval_results.txt")) as f:
    results = dict(line.strip().split(" = ") for line in f if line.strip())
  assert set(results) >= {"eval_loss", "eval_in_batch_accuracy", "recall@1",
                          "recall@10", "mrr", "global_step"}
  assert int(results["global_step"]) == 48
  assert float(results["recall@1"]) <= float(results["recall@10"])
  assert float(results["mrr"]) >= 0.5   # chance (30 candidates): ~0.13


def test_test_results_and_saved_model(trained):
  options, test = trained
  with open(os.path.join(options.output_dir, "test_results.tsv")) as f:
    rows = [line.rstrip("\n").split("\t") for line in f]
  assert len(rows) == len(test) and all(len(r) == 10 for r in rows)
  scores = [[float(x.split(":")[1]) for x in r] for r in rows]
  assert all(s == sorted(s, reverse=True) for s in scores)
  serve = tf.saved_model.load(options.export_dir).signatures[
      "serving_default"]
  queries = serve(text=tf.constant([t["anchor"] for t in test]))[
      "embeddings"].numpy()
  corpus = serve(text=tf.constant([t["positive"] for t in test]))[
      "embeddings"].numpy()
  np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1., rtol=1e-5)
  top = [[int(x.split(":")[0]) for x in r] for r in rows]
  best = np.argmax(queries @ corpus.T, axis=1)
  assert best.tolist() == [r[0] for r in top]
  np.testing.assert_allclose(np.max(queries @ corpus.T, axis=1),
                             [s[0] for s in scores], rtol=1e-4, atol=1e-5)


def test_uneven_negatives_name_file_and_line(tmp_path, trained):
  options, _ = trained
  data_dir = tmp_path / "data"
  data_dir.mkdir()
  _write_jsonl(str(data_dir / "train.jsonl"), [
      {"anchor": "w1", "positive": "w2", "negative": "w3"},
      {"anchor": "w1", "positive": "w2"}])
  bad = vars(options).copy()
  bad.update(data_dir=str(data_dir), output_dir=str(tmp_path / "out"),
             do_eval=False, do_predict=False, export_dir=None)
  with pytest.raises(InputError, match=r"train.jsonl: line 2: every line "
                     r"needs a \"negative\" or none does"):
    driver.run(EmbeddingJob(embedding_flags.default_settings(**bad)))
