"""NER: the same raw texts give the same tags on every path.

One tiny model is trained by run_ner's pipeline (module fixture, a few
steps) with --crf (--crf_constraints=auto: BIO) --max_seq_length=16
--doc_stride=5, so that a long text spans many windows and an entity
crosses window edges. Then the same texts go through, nothing re-supplied
but the run's output_dir:
  script     run_ner's --do_predict (the CoNLL test file holds each text's
             BasicTokenizer words); test_predictions.txt
  keras      `bert_tf2.models.load(output_dir)` (a `TokenTextModel`: the
             run's windows, CRF and constraints, from model.json)
             `.predict`
  loaded     `bert_tf2.models.load_predictor(output_dir).predict`
  saved      the exported SavedModel, loaded in a fresh process that
             imports only tensorflow and tensorflow_text
  served     `predictor.served_answers` of the SavedModel's outputs
Tags per word must be equal on every path (and every word tagged: no
window dropped), entities equal, and the Keras model's per-window
probabilities equal the serving_ids signature's to 1e-5. Dropping any
one recorded setting from model.json changes the Keras model's windows,
or its tags (the constraints: on CRF scores set so that the unconstrained
best path is illegal), or is refused in one InputError line.
"""

import json
import os
import random
import subprocess

import keras
import numpy as np
import pytest
import tensorflow as tf

import tokenization
from bert_tf2 import models
from bert_tf2.common import InputError
from bert_tf2.ner import predictor
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner import job as ner_job
from tests import warm_python
from tests.common import cross_path
from tests.reliability import fixtures

NAMES = ["anna", "bob", "cafe", "muller"]
PLACES = ["paris", "sao", "paulo", "北", "京"]
WORDS = ["w%d" % i for i in range(16)] + ["the", "red", "cross", "in",
                                          "江", "泽", "民", "在", ".", ","]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##s"] + (
    NAMES + PLACES + WORDS)
SEQ, STRIDE = 16, 5
CONFIG = fixtures.config_dict(
    vocab_size=len(VOCAB), hidden_size=32, intermediate_size=64,
    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)

LONG = " ".join(
    ["W%d%s" % (i % 16, "s" if i % 3 == 0 else "") for i in range(9)] +
    ["Anna", "Bob", "in", "São", "Paulo", ",", "the", "Red", "Cross", "."] +
    ["w%d" % ((5 * i) % 16) for i in range(30)] + ["Café", "Müller", "in",
                                                   "Paris", "."])
TEXTS = [LONG, "", "江泽民在北京。", "Café Müller in São Paulo, Anna.",
         "w1 w2 paris", "zzz unknown-words in Paris"]


def _sentence(rng):
  tokens, tags = [], []
  while len(tokens) < rng.randint(3, 12):
    r = rng.random()
    if r < 0.2:
      n = rng.choice([1, 2])
      tokens += rng.sample(NAMES, n)
      tags += ["B-PER"] + ["I-PER"] * (n - 1)
    elif r < 0.35:
      n = rng.choice([1, 2])
      tokens += rng.sample(PLACES, n)
      tags += ["B-LOC"] + ["I-LOC"] * (n - 1)
    else:
      tokens.append(rng.choice(WORDS) + ("s" if rng.random() < 0.2 else ""))
      tags.append("O")
  return tokens, tags


def _write_conll(path, sentences):
  with open(path, "w", encoding="utf-8") as f:
    for sentence in sentences:
      for fields in zip(*sentence):
        f.write(" ".join(fields) + "\n")
      f.write("\n")


@pytest.fixture(scope="module")
def trained(bfloat16_cpu, tmp_path_factory):
  """The script's run: options, and the words of TEXTS it tagged."""
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("ner_paths"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(5)
  _write_conll(os.path.join(data_dir, "train.txt"),
               [_sentence(rng) for _ in range(96)])
  vocab_file = fixtures.write_text(os.path.join(root, "vocab.txt"),
                                   "\n".join(VOCAB) + "\n")
  basic = tokenization.BasicTokenizer(do_lower_case=True)
  words = [basic.tokenize(t) for t in TEXTS]
  # The script reads words, one per line (untagged): the texts that have
  # any (an empty text is no CoNLL sentence).
  _write_conll(os.path.join(data_dir, "test.txt"),
               [(w,) for w in words if w])
  config_file = fixtures.write_json(os.path.join(root, "bert_config.json"),
                                    CONFIG)
  options = ner_flags.default_options(
      data_dir=data_dir, vocab_file=vocab_file, bert_config_file=config_file,
      output_dir=os.path.join(root, "out"), do_train=True, do_predict=True,
      max_seq_length=SEQ, doc_stride=STRIDE, train_batch_size=16,
      predict_batch_size=4, learning_rate=3e-3, num_train_epochs=3.0,
      crf=True,
      save_checkpoints_steps=10000, iterations_per_loop=50,
      export_dir=os.path.join(root, "export"))
  ner_job.run(options)
  return options, words


def _script_tags(options, words):
  path = os.path.join(options.output_dir, "test_predictions.txt")
  with open(path, encoding="utf-8") as f:
    blocks = [b for b in f.read().split("\n\n") if b.strip()]
  rows = iter([[line.split() for line in b.splitlines()] for b in blocks])
  out = []
  for w in words:
    if not w:
      out.append([])
      continue
    row = next(rows)
    assert [r[0] for r in row] == w
    out.append([r[2] for r in row])
  return out


_SERVE = r"""
import json, sys
import tensorflow as tf, tensorflow_text  # noqa: F401 (registers ops)
export_dir, texts = sys.argv[1], json.loads(sys.argv[2])
served = tf.saved_model.load(export_dir)
out = served.signatures["serving_default"](text=tf.constant(texts))
rows = []
for i in range(len(texts)):
  n = int(out["num_words"][i])
  rows.append({"words": [w.decode() for w in out["words"][i][:n].numpy()],
               "tags": [t.decode() for t in out["tags"][i][:n].numpy()]})
mods = [m for m in sys.modules if m.split(".")[0] in (
    "bert_tf2", "modeling", "tokenization", "optimization")]
print(json.dumps({"rows": rows, "modules": mods}))
"""


def _saved_model_tags(export_dir, texts):
  env = dict(os.environ, PYTHONPATH="")
  done = subprocess.run([warm_python.command(), "-c", _SERVE, export_dir,
                         json.dumps(texts)], capture_output=True, text=True,
                        env=env, cwd="/", check=False)
  assert done.returncode == 0, done.stderr[-3000:]
  return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def paths(trained):
  options, words = trained
  keras_model = models.load(options.output_dir)
  served = _saved_model_tags(options.export_dir, TEXTS)
  loaded = models.load_predictor(options.output_dir).predict(TEXTS)
  return {"words": words,
          "script": _script_tags(options, words),
          "keras": keras_model.predict(TEXTS, batch_size=4, verbose=0),
          "window_logits": keras_model(tf.constant(TEXTS)).numpy(),
          "loaded": [a["tags"] for a in loaded],
          "loaded_words": [a["words"] for a in loaded],
          "loaded_entities": [a["entities"] for a in loaded],
          "saved": [r["tags"] for r in served["rows"]],
          "saved_words": [r["words"] for r in served["rows"]],
          "modules": served["modules"],
          "keras_model": keras_model,
          "served": _served_answers(options.export_dir, TEXTS)}


def _served_answers(export_dir, texts):
  serve = tf.saved_model.load(export_dir).signatures["serving_default"]
  return predictor.served_answers(texts, serve(text=tf.constant(texts)))


def test_the_long_text_spans_many_windows(trained, paths):
  del trained
  pre = paths["keras_model"].preprocessor
  features = pre(tf.constant([LONG]))
  assert features["input_ids"].shape[0] >= 5
  assert len(paths["words"][0]) > 50


def test_every_path_tags_every_word_the_same(paths):
  assert paths["saved_words"] == paths["words"]
  assert paths["loaded_words"] == paths["words"]
  for name in ("keras", "saved", "loaded"):
    assert [len(t) for t in paths[name]] == [len(w) for w in paths["words"]]
    assert paths[name] == paths["script"], name
  # A trained model: the long text's entities are found.
  assert set(paths["script"][0]) > {"O"}
  # The run's CRF and its BIO constraints came from model.json.
  crf = paths["keras_model"].task.crf
  assert crf is not None and crf.allowed is not None


def test_dropping_the_window_stride_changes_the_windows(trained, paths,
                                                      tmp_path):
  options, _ = trained
  directory = cross_path.without_setting(options.output_dir, "preprocessor",
                                         "doc_stride", str(tmp_path / "run"))
  model = models.load(directory)
  # The windows differ from the run's (their count and content): the
  # window logits the tags come from cannot be the run's.
  logits = model(tf.constant(TEXTS)).numpy()
  assert logits.shape != paths["window_logits"].shape or (
      np.abs(logits - paths["window_logits"]).max() > 1e-3)


@pytest.mark.parametrize("section,key,refusal", [
    ("model", "crf", r"^allowed: transition constraints need a CRF head"),
    ("model", "labels", r"^labels: give the tag names"),
    # The default length, 128, is longer than the tiny model's positions.
    ("preprocessor", "max_seq_length",
     r"max_seq_length=128 is longer than max_position_embeddings=32")])
def test_a_setting_that_cannot_be_dropped_is_one_input_error_line(
    trained, tmp_path, section, key, refusal):
  options, _ = trained
  directory = cross_path.without_setting(options.output_dir, section, key,
                                         str(tmp_path / "run"))
  with pytest.raises(InputError, match=refusal) as refused:
    models.load(directory)
  assert "\n" not in str(refused.value)


# Added to the start score of every I- tag: more than any emission gap of
# the tiny model (checked), less than the constraint's -10000.
_START_BONUS = 5000.0


def _favour_illegal_starts(model):
  """Sets the CRF's scores so that, unconstrained, the best path of every
  sentence starts with an I- tag (BIO-illegal): transitions 0 (each word's
  tag then only depends on its emission, the first on start + emission),
  start +_START_BONUS on I- tags. Constrained (the run's `allowed`), such a
  start scores _START_BONUS - 10000 and is never the best."""
  crf = model.task.crf
  labels = model.preprocessor.labels
  crf.transitions.assign(np.zeros(crf.transitions.shape, np.float32))
  crf.end_transitions.assign(np.zeros(crf.end_transitions.shape,
                                      np.float32))
  crf.start_transitions.assign(np.array(
      [_START_BONUS if t.startswith("I-") else 0. for t in labels],
      np.float32))


def test_dropping_the_constraints_gives_illegal_paths(trained, paths,
                                                     tmp_path):
  options, _ = trained
  # The emissions cannot outweigh the start bonus.
  assert np.abs(paths["window_logits"]).max() < _START_BONUS / 10
  directory = cross_path.without_setting(options.output_dir, "model",
                                         "allowed", str(tmp_path / "run"))
  unconstrained, run = models.load(directory), models.load(
      options.output_dir)
  assert unconstrained.task.crf.allowed is None
  for model in (unconstrained, run):
    _favour_illegal_starts(model)
  texts = [t for t in TEXTS if t]
  dropped = unconstrained.predict(texts, batch_size=4, verbose=0)
  kept = run.predict(texts, batch_size=4, verbose=0)
  assert all(tags[0].startswith("I-") for tags in dropped), dropped
  assert not any(tags[0].startswith("I-") for tags in kept), kept
  # Within one window the constrained path is legal (the long text's
  # words come from several windows' paths).
  assert all(_bio_legal(tags) for text, tags in zip(texts, kept)
             if text != LONG), kept


def _bio_legal(tags):
  """Whether a tag path is BIO-legal: I-X only after B-X or I-X."""
  previous = "O"
  for tag in tags:
    if tag.startswith("I-") and previous[2:] != tag[2:]:
      return False
    previous = tag
  return True


def test_entities_are_the_same_on_every_path(paths):
  found = [a["entities"] for a in paths["served"]]
  for text, words, tags, spans in zip(TEXTS, paths["words"],
                                      paths["script"], found):
    assert spans == predictor.entities(text, words, tags), text
    for entity in spans:
      assert text[entity["start"]:entity["end"]] == entity["text"]
  assert found[1] == []
  assert paths["loaded_entities"] == found


def test_the_saved_model_runs_without_the_project(paths):
  assert paths["modules"] == [], paths["modules"]


def test_window_probabilities_equal_the_saved_models(trained, paths):
  options, _ = trained
  model = paths["keras_model"]
  features = model.preprocessor(tf.constant(TEXTS))
  logits = model(tf.constant(TEXTS))
  served = tf.saved_model.load(options.export_dir).signatures["serving_ids"]
  out = served(**{k: features[k] for k in ("input_ids", "input_mask",
                                          "segment_ids")})
  np.testing.assert_allclose(out["probabilities"].numpy(),
                             tf.nn.softmax(logits, -1).numpy(), atol=1e-5)


def test_do_predict_on_the_finished_run_needs_no_other_flag(trained, tmp_path):
  """`run_ner.py --do_predict --output_dir=<run>`: every other flag is the
  record's; the predictions are the run's, byte for byte."""
  options, _ = trained
  cross_path.assert_predicts_again(options.output_dir, str(tmp_path / "run"),
                                   "run_ner.py", ["test_predictions.txt"])
