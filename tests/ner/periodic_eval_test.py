"""run_ner's evaluation during training: history, early stopping, best/,
export of the best checkpoint (through the fine-tuning driver)."""

import json
import os

import pytest

from bert_tf2.common import InputError
from bert_tf2.finetune import driver
from bert_tf2.ner import job
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner import job as ner_job
from tests.reliability import fixtures

SENTENCES = ["paris B-LOC\nis O\nnice O", "bob B-PER\nis O\nnice O",
             "nice O\nparis B-LOC", "bob B-PER\nbob I-PER"] * 2


def options(tmp_path, **extra):
  data = tmp_path / "data"
  data.mkdir(exist_ok=True)
  (data / "train.txt").write_text("\n\n".join(SENTENCES) + "\n")
  (data / "dev.txt").write_text("\n\n".join(SENTENCES[:4]) + "\n")
  (data / "test.txt").write_text("\n\n".join(SENTENCES[4:]) + "\n")
  vocab, config = fixtures.tiny_model_files(tmp_path,
                                            ["paris", "bob", "is", "nice"])
  return ner_flags.default_options(**dict(dict(
      data_dir=str(data), vocab_file=vocab, bert_config_file=config,
      output_dir=str(tmp_path / "out"), do_train=True, do_eval=True,
      max_seq_length=8, doc_stride=2, train_batch_size=2, eval_batch_size=2,
      num_train_epochs=2.0, eval_every_n_steps=2, iterations_per_loop=2),
      **extra))


def test_unknown_metric_refused_before_any_output(tmp_path):
  with pytest.raises(InputError, match="--early_stopping_metric=accuracy: "
                     "evaluation does not produce it; it produces .*eval_f1"):
    ner_job.run(options(tmp_path, early_stopping_metric="accuracy"))
  assert not os.path.exists(tmp_path / "out")


def test_stops_early_keeps_and_exports_best(tmp_path, monkeypatch):
  # Learning rate 0: eval_f1 never improves after the first evaluation, so
  # patience 1 stops training at step 4 of 8.
  exported = []
  export = driver.export
  monkeypatch.setattr(driver, "export", lambda j, task, checkpoint, *a: (
      exported.append(checkpoint), export(j, task, checkpoint, *a)))
  o = options(tmp_path, learning_rate=0.0, early_stopping_metric="eval_f1",
              early_stopping_patience=1, keep_best_checkpoint=True,
              do_predict=True, export_dir=str(tmp_path / "export"))
  ner_job.run(o)
  # Flags never lie: a run with every feature reads every run_ner.py flag.
  assert sorted(o.unread()) == []
  out = tmp_path / "out"
  with open(out / "eval_history.jsonl") as f:
    history = [json.loads(line) for line in f]
  assert [r["global_step"] for r in history] == [2, 4]
  assert "eval_f1" in history[0] and "eval_PER_f1" in history[0]
  with open(out / "best" / "best_metrics.json") as f:
    assert json.load(f) == history[0]
  assert os.path.exists(out / "best" / "model.ckpt-2.index")
  assert json.loads((out / "early_stopping.json").read_text())[
      "global_step"] == 4
  assert "global_step = 4\n" in (out / "eval_results.txt").read_text()
  assert not os.path.exists(out / "model.ckpt-8.index")
  assert os.path.exists(out / "test_results.txt")
  assert os.path.exists(tmp_path / "export" / "saved_model.pb")
  assert exported == [str(out / "best" / "model.ckpt-2")]
