"""run_squad's evaluation during training (through the fine-tuning driver):
EM/F1 on --predict_file every N steps, history, early stopping, best/,
export of the best checkpoint, and the up-front refusals."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.squad.predictor import SquadPredictor
from bert_tf2.squad import evaluate as squad_eval
from bert_tf2.squad import flags as squad_flags
from bert_tf2.squad import job as squad_job
from tests.squad import synthetic

QUESTION = ("what is the key ?", "alpha bravo key green charlie delta")


def options(tmp_path, version_2=True, **extra):
  vocab, config, train, dev = synthetic.files(
      str(tmp_path), num_train=32, num_dev=12, version_2=version_2)
  values = dict(
      bert_config_file=config, vocab_file=vocab, train_file=train,
      predict_file=dev, output_dir=str(tmp_path / "out"), do_train=True,
      max_seq_length=32, doc_stride=8, max_query_length=8,
      train_batch_size=8, predict_batch_size=8, learning_rate=2e-3,
      num_train_epochs=2.0, eval_every_n_steps=2, iterations_per_loop=2,
      version_2_with_negative=version_2)
  values.update(extra)
  return squad_flags.default_options(**values)


def _history(out):
  with open(out / "eval_history.jsonl") as f:
    return [json.loads(line) for line in f]


def _results(path):
  lines = path.read_text().splitlines()
  return dict(line.split(" = ") for line in lines)


def test_stops_early_keeps_and_exports_best(tmp_path):
  # eval_total (the number of questions) never improves on the first
  # evaluation: patience 1 stops training at step 4 of 8, and step 2 stays
  # the best checkpoint while training (learning rate > 0) moves on.
  o = options(tmp_path, early_stopping_metric="eval_total",
              early_stopping_mode="max", early_stopping_patience=1,
              keep_best_checkpoint=True, do_predict=True,
              export_dir=str(tmp_path / "export"))
  squad_job.run(o)
  # Flags never lie: a run with every feature reads every run_squad.py flag.
  assert sorted(o.unread()) == []
  out = tmp_path / "out"
  history = _history(out)
  assert [r["global_step"] for r in history] == [2, 4]
  assert {"eval_exact", "eval_f1", "eval_HasAns_f1", "eval_NoAns_exact",
          "eval_best_f1", "eval_best_f1_thresh"} <= set(history[0])
  with open(out / "best" / "best_metrics.json") as f:
    assert json.load(f) == history[0]
  assert os.path.exists(out / "best" / "model.ckpt-2.index")
  assert json.loads((out / "early_stopping.json").read_text())[
      "global_step"] == 4
  assert not os.path.exists(out / "model.ckpt-8.index")
  # eval_results.txt: the last evaluation (the latest checkpoint); the
  # --do_predict files come from the checkpoint --export_dir exports (the
  # best, step 2), as evaluate_squad.py's scores of them show.
  results = _results(out / "eval_results.txt")
  assert results["global_step"] == "4"
  official = squad_eval.evaluate_files(o.predict_file,
                                       str(out / "predictions.json"),
                                       str(out / "null_odds.json"))
  assert sorted(results) == sorted(["global_step"] + [
      "eval_" + k for k in official])
  for key, value in official.items():
    assert float(results["eval_" + key]) == pytest.approx(
        history[1]["eval_" + key]), key
    assert history[0]["eval_" + key] == pytest.approx(value), key
  # The SavedModel holds the best checkpoint's weights, not the latest's.
  serve = tf.saved_model.load(str(tmp_path / "export")).signatures[
      "serving_default"]
  served = serve(question=tf.constant([QUESTION[0]]),
                 context=tf.constant([QUESTION[1]]))["start_logit"]
  logits = {}
  for step, directory in ((2, out / "best"), (4, out)):
    predictor = SquadPredictor(
        o.bert_config_file, str(directory / ("model.ckpt-%d" % step)),
        o.vocab_file, max_seq_length=32, doc_stride=8, max_query_length=8,
        version_2_with_negative=True)
    logits[step] = predictor.predict([QUESTION])[0]["start_logit"]
  np.testing.assert_allclose(served.numpy()[0], logits[2], atol=1e-4)
  assert abs(logits[4] - logits[2]) > 1e-3, logits


def test_squad_1_1_metric_names(tmp_path):
  # SQuAD 1.1 data: evaluate_squad.py's exact_match and f1.
  with pytest.raises(InputError, match=r"--early_stopping_metric=eval_exact:"
                     r" evaluation does not produce it; it produces "
                     r"eval_exact_match, eval_f1$"):
    squad_job.run(options(tmp_path, version_2=False,
                         early_stopping_metric="eval_exact"))
  assert not os.path.exists(tmp_path / "out")


def _without_answers(path):
  with open(path) as f:
    data = json.load(f)
  for paragraph in data["data"][0]["paragraphs"]:
    for qa in paragraph["qas"]:
      qa.update(answers=[], is_impossible=False)
  with open(path, "w") as f:
    json.dump(data, f)


@pytest.mark.parametrize("change,message", [
    (dict(do_train=False, do_predict=True, init_checkpoint=None),
     "--eval_every_n_steps=2 needs --do_train"),
    (dict(predict_file=None), "--eval_every_n_steps=2 needs --predict_file"),
    ("no answers", r"--predict_file=.*dev.json: question 'q0' has no answer"),
    (dict(early_stopping_metric="f1"), "--early_stopping_metric=f1: "
     "evaluation does not produce it; it produces eval_HasAns_exact, .*"
     "eval_best_f1_thresh, eval_exact, eval_f1, .*eval_total"),
])
def test_refused_before_any_output(tmp_path, change, message):
  o = options(tmp_path)
  if change == "no answers":
    _without_answers(o.predict_file)
  else:
    o = o.replace(**change)
  with pytest.raises(InputError, match=message):
    squad_job.run(o)
  assert not os.path.exists(tmp_path / "out")
