"""Python prediction (classifier, SQuAD, features) and its SavedModels.

Tiny random-weight models saved as original checkpoints; the exported
SavedModels are loaded in a fresh process that imports only tensorflow and
tensorflow_text, and must give the Python API's outputs.
"""

import importlib
import json
import os
import shutil
import subprocess

import keras
import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.squad.predictor import SquadPredictor
from bert_tf2.common import artifact
from bert_tf2.squad.model import SquadModel
from tests import warm_python

WORDS = ["w%d" % i for i in range(30)] + ["alpha", "beta", "##s", "##ed"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "(", ")", ".", ",",
         "?", "-"] + WORDS
CONFIG = modeling.BertConfig(
    vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
    num_attention_heads=2, intermediate_size=48, max_position_embeddings=64,
    type_vocab_size=2, initializer_range=0.5)
TEXTS = ["w1 w2 alpha w3", ("w4 beta, w5", "w6 (w7)."), "Alpha W9 w10 zzz",
         " ".join(WORDS[:25]) * 2]
LONG_TEXTS = [" ".join(WORDS[:25]) * 2, "w3 w4", "alpha " * 14 + "betas w2"]
LONG_PAIRS = [(" ".join(WORDS[5:30]), "w1 (w2)"), ("w7 w8", "alpha beta"),
              ("w9 " * 20, " ".join(WORDS[:20]))]
QUESTIONS = [("w1 w2?", "w3 (w4 w5), w6. alpha betas w7-w8 w9."),
             ("alpha?", "w10 w11 w12 w13."),
             ("w14 w15 w16", "(w17) w18, w19 w20 alphaed w21 w22 w23.")]
# Contexts of several doc_stride windows (max_seq_length 32, stride 8).
LONG_CONTEXT = " ".join("w%d%s" % (i % 30, ["", ",", ".", " alpha",
                                           " betas"][i % 5])
                        for i in range(70))
SQUAD_QUESTIONS = QUESTIONS + [("w3 alpha?", LONG_CONTEXT),
                               ("beta w2", LONG_CONTEXT[:150]),
                               ("w5 (w6)?", LONG_CONTEXT[100:])]
SQUAD_SETTINGS = dict(max_seq_length=32, doc_stride=8, max_query_length=6,
                      max_answer_length=6, version_2_with_negative=True,
                      null_score_diff_threshold=-2.0)


def _checkpoint(model, directory):
  modeling.save_checkpoint(modeling.original_variable_names(model),
                           str(directory), 1)
  return str(directory)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
  keras.utils.set_random_seed(0)  # The same tiny models in every run.
  root = tmp_path_factory.mktemp("predict")
  vocab = root / "vocab.txt"
  vocab.write_text("\n".join(VOCAB) + "\n")
  config = root / "bert_config.json"
  config.write_text(CONFIG.to_json_string())
  classifier_dir = root / "classifier_out"
  _checkpoint(BertClassifier(CONFIG, 3), classifier_dir)
  artifact.write(str(classifier_dir), "classifier", str(config), str(vocab),
                 preprocessor=dict(do_lower_case=True, max_seq_length=16),
                 model=dict(num_labels=3),
                 outputs=dict(labels=["a", "b", "c"]))
  squad_ckpt = _checkpoint(SquadModel(CONFIG), root / "squad")
  bert_ckpt = _checkpoint(modeling.BertModel(CONFIG), root / "bert")
  return {"root": root, "vocab": str(vocab), "config": str(config),
          "classifier_dir": str(classifier_dir), "squad": squad_ckpt,
          "bert": bert_ckpt}


def test_classifier_from_output_dir_and_sliding_window(files):
  p = ClassifierPredictor.from_output_dir(files["classifier_dir"])
  out = p.predict(TEXTS)
  assert [o["label"] for o in out] == [
      ["a", "b", "c"][int(np.argmax(o["probabilities"]))] for o in out]
  np.testing.assert_allclose([o["probabilities"].sum() for o in out], 1.0,
                             rtol=1e-5)
  windows = ClassifierPredictor.from_output_dir(
      files["classifier_dir"], long_text="sliding_window", doc_stride=4)
  long_out = windows.predict(TEXTS)
  # Short texts: one window, same result; the long one is averaged.
  np.testing.assert_allclose(long_out[0]["probabilities"],
                             out[0]["probabilities"], atol=1e-6)
  assert not np.allclose(long_out[3]["probabilities"],
                         out[3]["probabilities"], atol=1e-4)


@pytest.mark.parametrize("bad", ["just a string", [1, 2], [("a",)], None])
def test_prediction_input_of_wrong_type_is_one_clear_error(files, bad):
  p = ClassifierPredictor.from_output_dir(files["classifier_dir"])
  with pytest.raises(InputError, match=r"^x(\[0\])?: expected"):
    p.predict(bad)


@pytest.mark.parametrize("bad", ["a question?", [("q",)], [("q", 3)],
                                 [["q", "c", "x"]]])
def test_squad_and_features_inputs_of_wrong_type(files, bad):
  squad = SquadPredictor(files["config"], files["squad"], files["vocab"],
                         max_seq_length=24, max_query_length=6)
  with pytest.raises(InputError, match=r"^x(\[0\](\[1\])?)?: expected "):
    squad.predict(bad)
  encoder = FeatureEncoder(files["config"], files["bert"], files["vocab"],
                           max_seq_length=16)
  for method in (encoder.encode, encoder.sentence_vectors):
    with pytest.raises(InputError, match="texts"):
      method(bad if not isinstance(bad, str) else 7)


def test_export_without_checkpoint_is_one_error_nothing_written(files,
                                                                tmp_path):
  from bert_tf2.classifier import options as options_lib  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier import pipeline  # pylint: disable=g-import-not-at-top
  data_dir = tmp_path / "data"
  data_dir.mkdir()
  (data_dir / "test.tsv").write_text("label\tb\ta\na\t1\tw1 w2\n")
  (data_dir / "multi").mkdir()
  (data_dir / "multi" / "test.tsv").write_text("label\tb\ta\n1\t0\tw1 w2\n")
  flags = dict(task_name="tsv", data_dir=str(data_dir),
               output_dir=str(tmp_path / "out"), vocab_file=files["vocab"],
               bert_config_file=files["config"], text_a_column="a",
               label_column="label", label_list="a,b,c", do_predict=True,
               max_seq_length=16, export_dir=str(tmp_path / "export"))
  # Single label, then multi-label (0/1 columns: the data is checked too).
  for extra in ({}, {"label_column": "label,b", "label_list": "label,b",
                     "data_dir": str(data_dir / "multi")}):
    with pytest.raises(InputError, match="--export_dir=.*: no checkpoint to "
                       "export in --output_dir=.*out"):
      pipeline.run(options_lib.default_options(**dict(flags, **extra)))
  (tmp_path / "not_a_model").mkdir()
  with pytest.raises(InputError, match="not a SavedModel"):
    pipeline.run(options_lib.default_options(**dict(
        flags, export_dir=str(tmp_path / "not_a_model"))))
  assert sorted(os.listdir(str(tmp_path))) == ["data", "not_a_model"]
  p = ClassifierPredictor.from_output_dir(files["classifier_dir"])
  with pytest.raises(InputError, match="not a SavedModel"):
    p.export(str(tmp_path / "not_a_model"))
  assert os.listdir(str(tmp_path / "not_a_model")) == []


def test_output_dir_without_checkpoint_or_assets_is_refused(files, tmp_path):
  with pytest.raises(InputError, match="model.json"):
    ClassifierPredictor.from_output_dir(str(tmp_path))
  empty = tmp_path / "no_ckpt"
  artifact.write(str(empty), "classifier", files["config"], files["vocab"],
                 outputs=dict(labels=["a", "b"]))
  with pytest.raises(InputError, match="no checkpoint"):
    ClassifierPredictor.from_output_dir(str(empty))
  with pytest.raises(InputError, match="not a 'squad'"):
    SquadPredictor.from_output_dir(files["classifier_dir"])


def test_long_texts_predictor_equals_run_classifier_windows(files,
                                                           tmp_path):
  from bert_tf2.classifier import options as options_lib  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier import pipeline  # pylint: disable=g-import-not-at-top
  data_dir = tmp_path / "data"
  data_dir.mkdir()
  rows = [(t, "") for t in LONG_TEXTS] + LONG_PAIRS
  (data_dir / "test.tsv").write_text("label\ta\tb\n" + "".join(
      "a\t%s\t%s\n" % row for row in rows))
  out = tmp_path / "out"
  shutil.copytree(files["classifier_dir"], str(out))
  pipeline.run(options_lib.default_options(
      task_name="tsv", data_dir=str(data_dir), output_dir=str(out),
      vocab_file=files["vocab"], bert_config_file=files["config"],
      text_a_column="a", text_b_column="b", label_column="label",
      label_list="a,b,c",
      do_predict=True, max_seq_length=16, long_text="sliding_window",
      doc_stride=4, predict_batch_size=4))
  script = np.loadtxt(str(out / "test_results.tsv"), ndmin=2)
  windows = ClassifierPredictor.from_output_dir(
      files["classifier_dir"], long_text="sliding_window", doc_stride=4)
  ours = windows.predict([t for t, _ in rows[:3]] + LONG_PAIRS)
  np.testing.assert_allclose(script, [o["probabilities"] for o in ours],
                             atol=1e-6)
  truncated = ClassifierPredictor.from_output_dir(files["classifier_dir"])
  assert not np.allclose(script[0], truncated.predict(rows[:1])[0][
      "probabilities"], atol=1e-4)


def test_squad_predictor_equals_run_squad_on_long_contexts(files,
                                                          tmp_path):
  from bert_tf2.squad import job as squad_job  # pylint: disable=g-import-not-at-top
  from tests.squad.train_test import _options  # pylint: disable=g-import-not-at-top
  data = {"version": "v2.0", "data": [{"title": "t", "paragraphs": [
      {"context": c, "qas": [{"id": "q%d" % i, "question": q, "answers": [],
                              "is_impossible": False}]}
      for i, (q, c) in enumerate(SQUAD_QUESTIONS)]}]}
  (tmp_path / "dev.json").write_text(json.dumps(data))
  out = tmp_path / "out"
  squad_job.run(_options(dict(
      config=files["config"], vocab=files["vocab"], out=str(out),
      train=None, dev=str(tmp_path / "dev.json")), do_train=False,
      init_checkpoint=files["squad"], n_best_size=20, **SQUAD_SETTINGS))
  predictions = json.loads((out / "predictions.json").read_text())
  null_odds = json.loads((out / "null_odds.json").read_text())
  squad = SquadPredictor(files["config"], files["squad"], files["vocab"],
                         **SQUAD_SETTINGS)
  ours = squad.predict(SQUAD_QUESTIONS)
  assert [predictions["q%d" % i] for i in range(len(ours))] == [
      o["answer"] for o in ours]
  np.testing.assert_allclose(
      [null_odds["q%d" % i] for i in range(len(ours))],
      [o["null_score_diff"] for o in ours], atol=1e-5)
  assert any(o["answer"] for o in ours[len(QUESTIONS):])


def test_squad_answers_are_spans_of_the_context(files):
  p = SquadPredictor(files["config"], files["squad"], files["vocab"],
                     max_seq_length=24, doc_stride=8, max_query_length=6,
                     max_answer_length=6)
  for (question, context), out in zip(QUESTIONS, p.predict(QUESTIONS)):
    assert out["answer"] and out["answer"] in context
    assert out["score"] == pytest.approx(out["start_logit"] +
                                         out["end_logit"])
  with pytest.raises(InputError):
    p.predict(["a question without a context"])


_SERVE = r"""
import json, sys
import tensorflow as tf, tensorflow_text  # noqa: F401 (registers ops)
args = json.loads(sys.argv[1])
out = {}
c = tf.saved_model.load(args["classifier"])
single = c.signatures["serving_default"](text_a=tf.constant(args["single"]))
pair = c.signatures["serving_pair"](text_a=tf.constant(args["a"]),
                                    text_b=tf.constant(args["b"]))
out["classifier"] = [single["probabilities"].numpy().tolist(),
                     [x.decode() for x in single["label"].numpy()],
                     pair["probabilities"].numpy().tolist()]
s = tf.saved_model.load(args["squad"]).signatures["serving_default"]
r = s(question=tf.constant(args["q"]), context=tf.constant(args["ctx"]))
out["squad"] = [[x.decode() for x in r["answer"].numpy()],
                r["score"].numpy().tolist(), r["no_answer"].numpy().tolist(),
                r["null_score_diff"].numpy().tolist(),
                r["num_windows"].numpy().tolist()]
w = tf.saved_model.load(args["windows"])
ws = w.signatures["serving_default"](text_a=tf.constant(args["long"]))
wp = w.signatures["serving_pair"](text_a=tf.constant(args["long_a"]),
                                  text_b=tf.constant(args["long_b"]))
out["windows"] = [ws["probabilities"].numpy().tolist(),
                  ws["num_windows"].numpy().tolist(),
                  wp["probabilities"].numpy().tolist(),
                  [x.decode() for x in wp["label"].numpy()]]
f = tf.saved_model.load(args["features"])
v = f.signatures["serving_default"](text=tf.constant(args["single"]))
out["features"] = [v["mean_vectors"].numpy().tolist(),
                   v["cls_vectors"].numpy().tolist(),
                   v["token_vectors"].numpy()[0, :5].tolist()]
assert not any(m.split(".")[0] in ("modeling", "bert_tf2", "tokenization")
               for m in sys.modules), "loaded project code"
print("RESULT" + json.dumps(out))
"""


def test_saved_models_in_a_fresh_process_equal_the_python_api(files):
  root = files["root"]
  classifier = ClassifierPredictor.from_output_dir(files["classifier_dir"])
  squad = SquadPredictor(files["config"], files["squad"], files["vocab"],
                         **SQUAD_SETTINGS)
  encoder = FeatureEncoder(files["config"], files["bert"], files["vocab"],
                           max_seq_length=16, layers=(-1, 0))
  windows = ClassifierPredictor.from_output_dir(
      files["classifier_dir"], long_text="sliding_window", doc_stride=4)
  singles = [t for t in TEXTS if isinstance(t, str)]
  pairs = [t for t in TEXTS if not isinstance(t, str)]
  args = {"classifier": classifier.export(str(root / "c_export")),
          "squad": squad.export(str(root / "s_export")),
          "features": encoder.export(str(root / "f_export")),
          "windows": windows.export(str(root / "w_export")),
          "long": LONG_TEXTS, "long_a": [a for a, _ in LONG_PAIRS],
          "long_b": [b for _, b in LONG_PAIRS],
          "single": singles, "a": [a for a, _ in pairs],
          "b": [b for _, b in pairs],
          "q": [q for q, _ in SQUAD_QUESTIONS],
          "ctx": [c for _, c in SQUAD_QUESTIONS]}
  env = dict(os.environ, PYTHONPATH="")
  # A fresh program (tests/warm_python.py: forked from a process that
  # imported TensorFlow and Keras only; _SERVE checks no project module).
  proc = subprocess.run([warm_python.command(), "-c", _SERVE,
                         json.dumps(args)],
                        capture_output=True, text=True, env=env,
                        cwd=str(root), timeout=300)
  assert proc.returncode == 0, proc.stderr[-3000:]
  served = json.loads(proc.stdout.split("RESULT", 1)[1])

  probs, labels, pair_probs = served["classifier"]
  ours = classifier.predict(singles)
  np.testing.assert_allclose(probs, [o["probabilities"] for o in ours],
                             atol=1e-5)
  assert labels == [o["label"] for o in ours]
  np.testing.assert_allclose(
      pair_probs, [o["probabilities"] for o in classifier.predict(pairs)],
      atol=1e-5)

  # Long texts: windows averaged in graph as in Python.
  probs, num_windows, pair_probs, pair_labels = served["windows"]
  ours = windows.predict(LONG_TEXTS)
  np.testing.assert_allclose(probs, [o["probabilities"] for o in ours],
                             atol=1e-5)
  assert num_windows == [
      len(windows.model.preprocessor((tf.constant([t]), tf.constant([""])))[
          "window_example"])
      for t in LONG_TEXTS]
  assert max(num_windows) > 3 and min(num_windows) == 1
  ours = windows.predict(LONG_PAIRS)
  np.testing.assert_allclose(pair_probs, [o["probabilities"] for o in ours],
                             atol=1e-5)
  assert pair_labels == [o["label"] for o in ours]

  # SQuAD over every doc_stride window of long contexts, as predict.
  answers, scores, no_answer, diffs, num_windows = served["squad"]
  assert num_windows[:len(QUESTIONS)] == [1] * len(QUESTIONS)
  assert min(num_windows[len(QUESTIONS):]) >= 2 and max(num_windows) > 5
  ours = squad.predict(SQUAD_QUESTIONS)
  assert any(o["no_answer"] for o in ours)
  assert not all(o["no_answer"] for o in ours[len(QUESTIONS):])
  assert answers == [o["answer"] for o in ours]
  assert no_answer == [o["no_answer"] for o in ours]
  np.testing.assert_allclose(scores, [o["score"] for o in ours], atol=1e-4)
  np.testing.assert_allclose(diffs, [o["null_score_diff"] for o in ours],
                             atol=1e-4)

  mean, cls, tokens = served["features"]
  np.testing.assert_allclose(mean, encoder.sentence_vectors(singles),
                             atol=1e-5)
  np.testing.assert_allclose(cls, encoder.sentence_vectors(singles, "cls"),
                             atol=1e-5)
  first = encoder.encode(singles[:1])[0]
  assert first["tokens"][:3] == ["[CLS]", "w1", "w2"]
  np.testing.assert_allclose(tokens, first["token_vectors"][:5], atol=1e-5)


@pytest.mark.parametrize("name, home", [
    ("ClassifierPredictor", "bert_tf2.classifier.predictor"),
    ("SquadPredictor", "bert_tf2.squad.predictor")])
def test_the_former_import_path_names_the_predictors_home(name, home):
  # The task predictors moved from bert_tf2.predict (generic, no task) to
  # their packages; the old import says where, in one line.
  with pytest.raises(ImportError, match="from %s import %s" % (home, name)):
    exec("from bert_tf2.predict import %s" % name)  # pylint: disable=exec-used
  module = importlib.import_module(home)
  assert getattr(module, name).__module__ == home
