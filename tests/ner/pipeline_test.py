"""End to end: run_ner's pipeline on a tiny learnable task, then export.

Names n0..n5 are persons (two adjacent names form one person: B-PER
I-PER), p0..p5 places (B-LOC); other words w0..w29 (some written "wNs",
two word pieces) are O. Sentences up to 14 words with max_seq_length 12
force overlapping windows.
"""

import json
import os
import random

import keras
import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.ner import metrics
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner import job as ner_job
from bert_tf2.ner import reader
from bert_tf2.ner import predictor
from tests.reliability import fixtures

NAMES = ["n%d" % i for i in range(6)]
PLACES = ["p%d" % i for i in range(6)]
WORDS = ["w%d" % i for i in range(30)]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##s"] + (
    NAMES + PLACES + WORDS)
CONFIG = fixtures.config_dict(
    vocab_size=len(VOCAB), hidden_size=32, intermediate_size=64,
    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def _sentence(rng, max_words):
  tokens, tags = [], []
  while len(tokens) < rng.randint(3, max_words):
    r = rng.random()
    if r < 0.15:
      n = rng.choice([1, 2])
      tokens += rng.sample(NAMES, n)
      tags += ["B-PER"] + ["I-PER"] * (n - 1)
    elif r < 0.3:
      tokens.append(rng.choice(PLACES))
      tags.append("B-LOC")
    else:
      word = rng.choice(WORDS)
      tokens.append(word + ("s" if rng.random() < 0.3 else ""))
      tags.append("O")
  return tokens, tags


def _write(path, sentences):
  with open(path, "w") as f:
    for tokens, tags in sentences:
      for token, tag in zip(tokens, tags):
        f.write("%s %s\n" % (token, tag))
      f.write("\n")


def _train(tmp_path_factory, **overrides):
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("ner"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(3)
  _write(os.path.join(data_dir, "train.txt"),
         [_sentence(rng, 14) for _ in range(240)])
  _write(os.path.join(data_dir, "dev.txt"),
         [_sentence(rng, 14) for _ in range(40)])
  _write(os.path.join(data_dir, "test.txt"),
         [_sentence(rng, 7) for _ in range(9)])
  vocab_file = os.path.join(root, "vocab.txt")
  with open(vocab_file, "w") as f:
    f.write("\n".join(VOCAB) + "\n")
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(CONFIG, f)
  options = ner_flags.default_options(
      data_dir=data_dir, vocab_file=vocab_file, bert_config_file=config_file,
      output_dir=os.path.join(root, "out"), do_train=True, do_eval=True,
      do_predict=True, max_seq_length=12, doc_stride=5, train_batch_size=16,
      eval_batch_size=16, predict_batch_size=4, learning_rate=3e-3,
      num_train_epochs=6.0, save_checkpoints_steps=10000,
      iterations_per_loop=50, export_dir=os.path.join(root, "export"),
      **overrides)
  ner_job.run(options)
  return options


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  return _train(tmp_path_factory)


def _results(path):
  with open(path) as f:
    return {k: float(v) for k, v in (line.strip().split(" = ")
                                     for line in f)}


def _predictions(path):
  sentences, current = [], []
  with open(path) as f:
    for line in f:
      if not line.strip():
        sentences.append(current)
        current = []
      else:
        current.append(line.split())
  return sentences


def test_eval_results_match_predictions_file_and_learned(trained):
  out = trained.output_dir
  result = _results(os.path.join(out, "eval_results.txt"))
  rows = _predictions(os.path.join(out, "eval_predictions.txt"))
  dev = reader.read_conll(os.path.join(trained.data_dir, "dev.txt"))
  assert [[r[0] for r in s] for s in rows] == [s.tokens for s in dev]
  assert [[r[1] for r in s] for s in rows] == [s.tags for s in dev]
  again = metrics.flatten(metrics.evaluate(
      [[r[1] for r in s] for s in rows], [[r[2] for r in s] for s in rows]))
  for key in ("eval_f1", "eval_precision", "eval_recall", "eval_PER_f1",
              "eval_LOC_f1", "eval_token_accuracy"):
    assert result[key] == pytest.approx(again[key]), key
  assert result["global_step"] > 0
  assert result["eval_f1"] > 0.6, result  # A lexical rule: learnable.
  with open(os.path.join(out, "label_list.txt")) as f:
    assert f.read().split() == ["O", "B-LOC", "B-PER", "I-PER"]


def test_test_predictions_and_results(trained):
  rows = _predictions(os.path.join(trained.output_dir,
                                   "test_predictions.txt"))
  assert len(rows) == 9
  assert os.path.exists(os.path.join(trained.output_dir, "test_results.txt"))


def served_entities(export_dir, texts):
  """The entities of `texts` by the SavedModel's serving_default."""
  serve = tf.saved_model.load(export_dir).signatures["serving_default"]
  return [a["entities"] for a in predictor.served_answers(
      texts, serve(text=tf.constant(texts)))]


def test_saved_model_spans_agree_with_pipeline(trained):
  rows = _predictions(os.path.join(trained.output_dir,
                                   "test_predictions.txt"))
  texts = [" ".join(r[0] for r in s) for s in rows]
  spans = served_entities(trained.export_dir, texts)
  for text, sentence, found in zip(texts, rows, spans):
    tokens = [r[0] for r in sentence]
    expected = predictor.entities(text, tokens, [r[2] for r in sentence])
    assert found == expected, text
    for entity in found:
      assert text[entity["start"]:entity["end"]] == entity["text"]


def test_bad_flags(trained, tmp_path):
  bad = ner_flags.default_options(**dict(vars(trained), doc_stride=11,
                                        output_dir=str(tmp_path)))
  with pytest.raises(InputError, match="--doc_stride=11"):
    ner_job.run(bad)
  none = ner_flags.default_options(**dict(vars(trained), do_train=False,
                                         do_eval=False, do_predict=False,
                                         export_dir=None))
  with pytest.raises(InputError, match="At least one of"):
    ner_job.run(none)


def test_the_old_tagger_import_names_the_new_one():
  from bert_tf2.ner import serving  # pylint: disable=g-import-not-at-top
  with pytest.raises(ImportError, match="from bert_tf2.ner.predictor import "
                     "EntityTagger"):
    from bert_tf2.ner.serving import EntityTagger  # pylint: disable=g-import-not-at-top,unused-import
  with pytest.raises(ImportError, match="bert_tf2.ner.predictor"):
    serving.entities  # pylint: disable=pointless-statement
  assert serving.ner_server
