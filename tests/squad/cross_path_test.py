"""One answer on every path of SQuAD: the same raw (question, context)
pairs through run_squad's --do_predict (predictions.json,
nbest_predictions.json), the raw-string Keras model's `predict`
(`bert_tf2.models.load(output_dir)`), `models.load_predictor(output_dir)`,
the SavedModel loaded in a fresh process that imports only tensorflow and
tensorflow_text, and the Python predictor (`SquadPredictor.from_output_dir`):
the same answer span (text exactly, start/end logits to 1e-5), nothing
re-supplied but the run's output_dir. The run trains one step at a tiny
rate with settings none of which is a default; dropping one of them from
the output_dir's model.json changes the answers or windows (or is
refused).

Inputs: a context of many doc_stride windows (the answer may sit in any),
CJK, accents, a short context, an empty question."""

import json
import os

import keras
import numpy as np
import pytest

from bert_tf2 import models
from bert_tf2.common import InputError
from bert_tf2.squad.predictor import SquadPredictor
from bert_tf2.squad import flags as squad_flags
from bert_tf2.squad import job as squad_job
from bert_tf2.squad.model import SquadModel
from tests.common import cross_path

pytestmark = pytest.mark.slow
SETTINGS = dict(max_seq_length=24, doc_stride=6, max_query_length=3,
                n_best_size=10, max_answer_length=5)
LONG = " ".join(["the cat sat on the mat , bob met ann in paris ."] * 6)
PAIRS = [("who met ann ?", LONG), ("where ?", "江泽民在北京。"),
         ("who visitéd Pâris ?", "Angéla Mërkel visitéd Pâris ."),
         ("the cat", "a dog ran"), ("", "bob met ann in paris")]

_SERVE = """
out = serve(question=tf.constant(args["q"]), context=tf.constant(args["c"]))
print("RESULT" + json.dumps({
    "answer": [a.decode("utf-8") for a in out["answer"].numpy()],
    "start_logit": out["start_logit"].numpy().tolist(),
    "end_logit": out["end_logit"].numpy().tolist(),
    "num_windows": out["num_windows"].numpy().tolist()}))
"""

@pytest.fixture(scope="module")
def run(bfloat16_cpu, tmp_path_factory):
  """The script's settings after --do_predict --export_dir of a checkpoint
  with widely spread weights (so spans differ by far more than 1e-5)."""
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("squad_paths"))
  ckpt = cross_path.spread_checkpoint(os.path.join(root, "ckpt"),
                                     SquadModel)
  train_file = os.path.join(root, "train.json")
  with open(train_file, "w", encoding="utf-8") as f:
    json.dump({"version": "1.1", "data": [{"title": "t", "paragraphs": [
        {"context": "bob met ann in paris", "qas": [
            {"id": "t%d" % i, "question": "who met ann ?", "answers": [
                {"text": "bob", "answer_start": 0}]}]}
        for i in range(4)]}]}, f)
  predict_file = os.path.join(root, "dev.json")
  paragraphs = [{"context": c, "qas": [{"id": "q%d" % i, "question": q,
                                        "answers": []}]}
                for i, (q, c) in enumerate(PAIRS)]
  with open(predict_file, "w", encoding="utf-8") as f:
    json.dump({"version": "1.1", "data": [{"title": "t",
                                           "paragraphs": paragraphs}]}, f,
              ensure_ascii=False)
  o = squad_flags.default_options(
      bert_config_file=os.path.join(ckpt, "bert_config.json"),
      vocab_file=os.path.join(ckpt, "vocab.txt"),
      init_checkpoint=os.path.join(ckpt, "bert_model.ckpt"),
      output_dir=os.path.join(root, "out"), predict_file=predict_file,
      train_file=train_file, do_train=True, train_batch_size=4,
      learning_rate=1e-6, num_train_epochs=1.0,
      do_predict=True, predict_batch_size=4,
      export_dir=os.path.join(root, "export"), **SETTINGS)
  squad_job.run(o)
  return o


def _script(o):
  with open(os.path.join(o.output_dir, "predictions.json")) as f:
    answers = json.load(f)
  with open(os.path.join(o.output_dir, "nbest_predictions.json")) as f:
    nbest = json.load(f)
  keys = ["q%d" % i for i in range(len(PAIRS))]
  return ([answers[k] for k in keys],
          [nbest[k][0]["start_logit"] for k in keys],
          [nbest[k][0]["end_logit"] for k in keys])


def _python(directory):
  out = SquadPredictor.from_output_dir(directory).predict(PAIRS)
  return ([r["answer"] for r in out], [r["start_logit"] for r in out],
          [r["end_logit"] for r in out])


def _keras(directory):
  out = models.load(directory).predict(
      ([q for q, _ in PAIRS], [c for _, c in PAIRS]), verbose=0)
  return (out["answer"].tolist(), out["start_logit"].tolist(),
          out["end_logit"].tolist(), out["num_windows"].tolist())


def _loaded(directory):
  out = models.load_predictor(directory).predict(
      ([q for q, _ in PAIRS], [c for _, c in PAIRS]))
  return ([r["answer"] for r in out], [r["start_logit"] for r in out],
          [r["end_logit"] for r in out], [r["num_windows"] for r in out])


def _saved_model(o):
  out = cross_path.serve_in_fresh_process(
      o.export_dir, _SERVE, {"q": [q for q, _ in PAIRS],
                             "c": [c for _, c in PAIRS]})
  return (out["answer"], out["start_logit"], out["end_logit"],
          out["num_windows"])


def _same(got, want):
  assert got[0] == want[0]
  np.testing.assert_allclose(got[1], want[1], atol=1e-5)
  np.testing.assert_allclose(got[2], want[2], atol=1e-5)


def test_every_path_gives_the_same_answer(run):
  script = _script(run)
  assert len(set(script[0])) > 3  # Not one answer for all.
  _same(_python(run.output_dir), script)
  keras_out = _keras(run.output_dir)
  assert keras_out[3][0] > 3 and keras_out[3][1:] == [1] * (len(PAIRS) - 1)
  _same(keras_out, script)
  loaded = _loaded(run.output_dir)
  assert loaded[3] == keras_out[3]
  _same(loaded, script)
  served = _saved_model(run)
  assert served[3] == keras_out[3]
  _same(served, script)


# n_best_size (10 here, 20 by default) is recorded too, but on these inputs
# the best span of the top 10 is the best of the top 20: no answer shows it.
@pytest.mark.parametrize("key", ["doc_stride", "max_answer_length",
                                 "max_query_length", "max_seq_length"])
def test_dropping_a_recorded_setting_changes_the_answers(run, tmp_path, key):
  section = "model" if key in ("n_best_size", "max_answer_length") else (
      "preprocessor")
  directory = cross_path.without_setting(run.output_dir, section, key,
                                         str(tmp_path / "run"))
  for path in (_keras,):  # load_predictor answers from the same load.
    want = path(run.output_dir)
    try:
      got = path(directory)
    except InputError as e:  # Refused: not the run's answers either.
      assert "\n" not in str(e), str(e)
      continue
    # The answers, their logits or the windows they come from.
    assert got[0] != want[0] or got[3] != want[3] or np.abs(
        np.subtract(got[1], want[1])).max() > 1e-3, (key, path.__name__)


def test_do_predict_on_the_finished_run_needs_no_other_flag(run, tmp_path):
  """`run_squad.py --do_predict --output_dir=<run>`: every other flag is the
  record's; the predictions are the run's, byte for byte."""
  o = run
  cross_path.assert_predicts_again(
      o.output_dir, str(tmp_path / "run"), "run_squad.py",
      ["predictions.json", "nbest_predictions.json"])
