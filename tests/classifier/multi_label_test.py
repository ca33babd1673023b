"""Multi-label classification: metrics by hand, both label layouts, and a
tiny end-to-end run through run_classifier's pipeline."""

import json
import os
import random

import keras
import numpy as np
import pytest

from bert_tf2.common import InputError
from bert_tf2.classifier import multi_label
from bert_tf2.classifier import pipeline
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.options import default_options


def test_metrics_hand_computed():
  labels = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]])
  probs = np.array([[.9, .6, .4], [.1, .7, .8], [.2, .5, .1], [.3, .2, .6]])
  # Predicted at 0.5: [1,1,0], [0,1,1], [0,1,0], [0,0,1].
  m = multi_label.multi_label_metrics(labels, BertClassifier.predicted(probs),
                                      ["a", "b", "c"])
  # a: tp 1, fp 0, fn 1 -> P 1, R 1/2, F1 2/3.
  assert (m["eval_a_precision"], m["eval_a_recall"]) == (1.0, 0.5)
  assert m["eval_a_f1"] == pytest.approx(2 / 3)
  # b: tp 2, fp 1, fn 0 -> P 2/3, R 1, F1 0.8.
  assert m["eval_b_precision"] == pytest.approx(2 / 3)
  assert m["eval_b_f1"] == pytest.approx(0.8)
  # c: tp 1, fp 1, fn 1 -> P = R = F1 = 1/2.
  assert m["eval_c_f1"] == pytest.approx(0.5)
  # micro: tp 4, fp 2, fn 2 -> P = R = F1 = 2/3.
  assert m["eval_micro_precision"] == pytest.approx(2 / 3)
  assert m["eval_micro_f1"] == pytest.approx(2 / 3)
  assert m["eval_macro_f1"] == pytest.approx((2 / 3 + 0.8 + 0.5) / 3)
  assert m["eval_exact_match"] == pytest.approx(1 / 4)  # Only row 1.
  assert m["eval_a_support"] == 2


def _write(path, lines):
  with open(path, "w") as f:
    f.write("\n".join(lines) + "\n")


def test_column_layout_and_delimited_layout(tmp_path):
  d = str(tmp_path)
  _write(os.path.join(d, "train.tsv"),
         ["text\ttoxic\tinsult", "you fool\t1\t1", "hello\t0\t0"])
  p = multi_label.MultiLabelProcessor(d, text_a_column="text",
                                      label_column="toxic,insult")
  assert p.get_labels() == ["toxic", "insult"]
  assert [e.label for e in p.get_train_examples(d)] == [
      ("toxic", "insult"), ()]
  _write(os.path.join(d, "dev.tsv"),
         ["text\ttags", "a\tsport|politics", "b\t", "c\tsport"])
  p = multi_label.MultiLabelProcessor(
      d, text_a_column="text", label_column="tags",
      multi_label_delimiter="|", train_file="dev.tsv")
  assert p.get_labels() == ["politics", "sport"]
  assert [e.label for e in p.get_dev_examples(d)] == [
      ("sport", "politics"), (), ("sport",)]


def test_bad_label_values_name_file_and_line(tmp_path):
  d = str(tmp_path)
  _write(os.path.join(d, "train.tsv"),
         ["text\ttoxic\tinsult", "x\t1\t0", "y\t2\t0"])
  p = multi_label.MultiLabelProcessor(d, text_a_column="text",
                                      label_column="toxic,insult")
  with pytest.raises(InputError, match=r"train.tsv.*3.*toxic is '2', "
                     r"expected 0 or 1"):
    p.get_train_examples(d)
  _write(os.path.join(d, "dev.tsv"), ["text\ttags", "a\tsport|chess"])
  p = multi_label.MultiLabelProcessor(
      d, text_a_column="text", label_column="tags",
      multi_label_delimiter="|", label_list=["sport"])
  with pytest.raises(InputError, match="unknown label 'chess'"):
    p.get_dev_examples(d)


WORDS = ["w%d" % i for i in range(30)]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "alpha",
         "beta"] + WORDS


def _rows(rng, n):
  rows = []
  for i in range(n):
    words = rng.sample(WORDS, rng.randint(3, 6))
    tags = []
    if i % 2 == 0:
      words.insert(rng.randint(0, len(words)), "alpha")
      tags.append("A")
    if i % 3 == 0:
      words.insert(rng.randint(0, len(words)), "beta")
      tags.append("B")
    rows.append("%s\t%s" % (" ".join(words), "|".join(tags)))
  return rows


def test_end_to_end_eval_and_predict(bfloat16_cpu, tmp_path):
  keras.utils.set_random_seed(0)
  d = str(tmp_path / "data")
  os.makedirs(d)
  rng = random.Random(0)
  _write(os.path.join(d, "train.tsv"), ["text\ttags"] + _rows(rng, 240))
  _write(os.path.join(d, "dev.tsv"), ["text\ttags"] + _rows(rng, 36))
  _write(os.path.join(d, "test.tsv"), ["text"] + [
      r.split("\t")[0] for r in _rows(rng, 7)])
  vocab = str(tmp_path / "vocab.txt")
  _write(vocab, VOCAB)
  config = str(tmp_path / "bert_config.json")
  with open(config, "w") as f:
    json.dump({"vocab_size": len(VOCAB), "hidden_size": 32,
               "num_hidden_layers": 1, "num_attention_heads": 2,
               "intermediate_size": 64, "hidden_dropout_prob": 0.0,
               "attention_probs_dropout_prob": 0.0,
               "max_position_embeddings": 16}, f)
  out = str(tmp_path / "out")
  o = default_options(
      task_name="tsv", data_dir=d, vocab_file=vocab, bert_config_file=config,
      output_dir=out, do_train=True, do_eval=True, do_predict=True,
      max_seq_length=12, text_a_column="text", label_column="tags",
      train_batch_size=16, learning_rate=3e-3, num_train_epochs=4.0,
      iterations_per_loop=50, label_list="A,B", eval_every_n_steps=20,
      early_stopping_metric="eval_micro_f1", early_stopping_mode="max",
      early_stopping_patience=5, keep_best_checkpoint=True,
      export_dir=str(tmp_path / "export"))
  o.multi_label_delimiter = "|"
  # An early-stopping metric evaluation does not make: one line, no output.
  bad = default_options(**dict(vars(o),
                                        early_stopping_metric="eval_A_f1"))
  with pytest.raises(InputError, match="eval_A_f1: evaluation does not "
                     "produce it; it produces eval_exact_match, eval_loss, "
                     "eval_micro_f1"):
    pipeline.run(bad)
  assert not os.path.exists(out)
  pipeline.run(o)
  with open(os.path.join(out, "eval_results.txt")) as f:
    result = {k: float(v) for k, v in (l.strip().split(" = ") for l in f)}
  for key in ("eval_A_f1", "eval_B_precision", "eval_B_recall",
              "eval_micro_f1", "eval_macro_f1", "eval_exact_match",
              "eval_loss", "global_step"):
    assert key in result, key
  assert result["eval_macro_f1"] == pytest.approx(
      (result["eval_A_f1"] + result["eval_B_f1"]) / 2)
  assert result["eval_loss"] < 0.6, result  # ln 2 = 0.69 untrained.
  with open(os.path.join(out, "test_results.tsv")) as f:
    rows = [[float(x) for x in line.split("\t")] for line in f]
  assert len(rows) == 7 and all(len(r) == 2 for r in rows)
  assert all(0.0 <= x <= 1.0 for r in rows for x in r)

  # Periodic evaluation with the in-graph metrics, the best one kept.
  from bert_tf2 import runner  # pylint: disable=g-import-not-at-top
  history = runner.periodic_eval.read_history(out)
  assert [h["global_step"] for h in history] == [20, 40, 60]
  best = max(history, key=lambda h: h["eval_micro_f1"])
  assert 0.0 <= best["eval_micro_f1"] <= 1.0
  assert runner.best_checkpoint(out).endswith("-%d" % best["global_step"])
  # Python prediction and the exported SavedModel (of the best checkpoint).
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  import tensorflow_text  # pylint: disable=g-import-not-at-top,unused-import
  from bert_tf2.classifier.predictor import ClassifierPredictor  # pylint: disable=g-import-not-at-top
  with open(os.path.join(d, "test.tsv")) as f:
    texts = [line.rstrip("\n") for line in f][1:]
  # test_results.tsv comes from the checkpoint --export_dir exports: the
  # best one (--keep_best_checkpoint).
  ours = ClassifierPredictor.from_output_dir(out, best=True).predict(texts)
  np.testing.assert_allclose([p["probabilities"] for p in ours], rows,
                             atol=1e-5)
  assert [p["labels"] for p in ours] == [
      [n for n, q in zip("AB", r) if q >= 0.5] for r in rows]
  served = tf.saved_model.load(str(tmp_path / "export")).signatures[
      "serving_default"](text_a=tf.constant(texts))
  np.testing.assert_allclose(served["probabilities"].numpy(),
                             [p["probabilities"] for p in ours], atol=1e-5)
  assert served["predicted"].numpy().tolist() == [
      [n in p["labels"] for n in "AB"] for p in ours]
  # The output_dir alone: its model.json names the best checkpoint (the
  # one test_results.tsv and the export used) and the multi-label head.
  from bert_tf2 import models  # pylint: disable=g-import-not-at-top
  from bert_tf2.common import artifact  # pylint: disable=g-import-not-at-top
  assert artifact.read(out).checkpoint == runner.best_checkpoint(out)
  logits = models.load(out).predict(texts, verbose=0)
  np.testing.assert_allclose(1 / (1 + np.exp(-logits)), rows, atol=1e-5)
  loaded = models.load_predictor(out).predict(texts)
  np.testing.assert_allclose([p["probabilities"] for p in loaded], rows,
                             atol=1e-5)
  assert [p["labels"] for p in loaded] == [p["labels"] for p in ours]
  recorded = ClassifierPredictor.from_output_dir(out).predict(texts)
  np.testing.assert_allclose([p["probabilities"] for p in recorded], rows,
                             atol=1e-5)
  # The head's settings are recorded, the decision threshold with them.
  assert artifact.read(out).model == {"num_labels": 2, "multi_label": True,
                                      "threshold": 0.5}
  # Dropping the recorded multi-label head leaves its threshold on a
  # single-label head: refused in one line.
  from tests.common import cross_path  # pylint: disable=g-import-not-at-top
  single = cross_path.without_setting(out, "model", "multi_label",
                                      str(tmp_path / "single"))
  with pytest.raises(InputError, match=r"^threshold=0\.5: only a "
                     r"multi-label model \(multi_label=True\)[^\n]*$"):
    models.load_predictor(single)
  # Dropping both: softmax probabilities, wrong.
  single = cross_path.without_setting(single, "model", "threshold",
                                      str(tmp_path / "single2"))
  dropped = models.load_predictor(single).predict(texts)
  assert np.abs(np.array([p["probabilities"] for p in dropped]) -
                np.array(rows)).max() > 0.05


def test_eval_loss_is_the_models_loss_on_confident_logits():
  """MultiLabelJob.evaluate's eval_loss is the model's sigmoid
  cross-entropy of the logits (`BertClassifier.logits_eval_results`), exact
  at logits of +-30 where a loss from clipped probabilities is capped."""
  import modeling  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier.processors import InputExample  # pylint: disable=g-import-not-at-top
  cfg = modeling.BertConfig(vocab_size=8, hidden_size=8, num_hidden_layers=1,
                            num_attention_heads=2, intermediate_size=16)
  model = BertClassifier(cfg, 2, multi_label=True)
  logits = np.array([[30.0, -30.0], [-30.0, 2.0], [0.5, 30.0]], np.float32)
  hot = np.array([[0, 0], [1, 0], [0, 1]], np.float32)  # Two confident misses.

  class FakeEstimator(object):
    def predict(self, input_fn):
      del input_fn
      out = model.head_outputs(logits)
      return [{k: np.asarray(v[i]) for k, v in out.items()}
              for i in range(len(logits))]

    def latest_checkpoint(self):
      return "/x/model.ckpt-7"
  FakeEstimator.model = model
  job = object.__new__(multi_label.MultiLabelJob)
  job.label_list = ["A", "B"]
  job.examples = {"eval": [
      InputExample(str(i), "t", None, [n for n, h in zip("AB", row) if h])
      for i, row in enumerate(hot)]}
  result = job.evaluate(FakeEstimator(), None, None)
  x = logits.astype(np.float64)
  expected = np.mean(np.maximum(x, 0) - x * hot + np.log1p(np.exp(-abs(x))))
  assert result["eval_loss"] == pytest.approx(expected, rel=1e-5)
  assert result["global_step"] == 7
