"""--do_predict with --keep_best_checkpoint predicts with the checkpoint
--export_dir exports (the best), not the latest: run_ner's test F1 is the
exported model's (the fine-tuning driver, once for every script)."""

import json
import os

import numpy as np
import tensorflow as tf

from bert_tf2.ner import flags as ner_flags

from bert_tf2.ner import job as ner_job
from tests.reliability import fixtures

SENTENCES = ["paris B-LOC\nis O\nnice O", "bob B-PER\nis O\nnice O",
             "nice O\nparis B-LOC", "bob B-PER\nbob I-PER"] * 2


def _options(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  (data / "train.txt").write_text("\n\n".join(SENTENCES) + "\n")
  (data / "dev.txt").write_text("\n\n".join(SENTENCES[:4]) + "\n")
  (data / "test.txt").write_text("\n\n".join(SENTENCES[4:]) + "\n")
  vocab, config = fixtures.tiny_model_files(tmp_path,
                                            ["paris", "bob", "is", "nice"])
  # eval_sentences is the same at every evaluation, so the first one (step
  # 2) stays the best while training goes on to step 8 (patience 0): best
  # and latest differ, whatever the weights learn.
  return ner_flags.default_options(
      data_dir=str(data), vocab_file=vocab, bert_config_file=config,
      output_dir=str(tmp_path / "out"), do_train=True, do_eval=True,
      do_predict=True, max_seq_length=8, doc_stride=2, train_batch_size=2,
      eval_batch_size=2, num_train_epochs=2.0, learning_rate=0.05,
      eval_every_n_steps=2, iterations_per_loop=2,
      early_stopping_metric="eval_sentences", early_stopping_mode="max",
      keep_best_checkpoint=True, export_dir=str(tmp_path / "export"))


def _read_predictions(path):
  """[(words, predicted tags)] of a `token gold predicted` file."""
  out = []
  for block in open(path, encoding="utf-8").read().strip().split("\n\n"):
    rows = [line.split() for line in block.splitlines()]
    out.append(([r[0] for r in rows], [r[2] for r in rows]))
  return out


def test_ner_test_outputs_come_from_the_exported_best_checkpoint(tmp_path):
  ner_job.run(_options(tmp_path))
  out = tmp_path / "out"
  assert os.path.exists(out / "model.ckpt-8.index")
  with open(out / "best" / "best_metrics.json") as f:
    assert json.load(f)["global_step"] == 2
  # eval_results.txt: the latest checkpoint (documented, as the original);
  # test_results.txt: the exported (best) one.
  assert "global_step = 8\n" in (out / "eval_results.txt").read_text()
  assert "global_step = 2\n" in (out / "test_results.txt").read_text()

  written = _read_predictions(out / "test_predictions.txt")
  serve = tf.saved_model.load(str(tmp_path / "export")).signatures[
      "serving_default"]
  got = serve(text=tf.constant([" ".join(w) for w, _ in written]))
  for i, (words, tags) in enumerate(written):
    n = int(got["num_words"][i])
    assert [w.decode() for w in got["words"][i][:n].numpy()] == words
    assert [t.decode() for t in got["tags"][i][:n].numpy()] == tags
  assert np.sum(got["num_words"]) == sum(len(w) for w, _ in written)
