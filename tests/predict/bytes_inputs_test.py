"""`bytes` are accepted wherever `str` is (the Python predictors of every
task, `EntityTagger`, the raw-string Keras models), with the same answers;
invalid UTF-8 is one `InputError` naming the input and its index (one
check: `bert_tf2.common.text_inputs.check_text`)."""

import numpy as np
import pytest

import modeling
from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.common import text_inputs
from bert_tf2.multiple_choice.predictor import MultipleChoicePredictor
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner import job as ner_job
from bert_tf2.ner.predictor import EntityTagger
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.squad.predictor import SquadPredictor
from bert_tf2.squad.model import SquadModel
import tokenization
from tests.common import tiny_dir
from tests.reliability import fixtures

TEXTS = ["angela merkel visited paris.", "江泽民在北京。", "Bob mét Ann"]
AS_BYTES = [t.encode("utf-8") for t in TEXTS]
BAD = b"bob \xff met"  # 0xff is never UTF-8.
BAD_INDEX = r"\[1\]: not valid UTF-8 \(byte 0xff at offset 4\)"


def test_check_texts_decodes_bytes_and_names_the_bad_one():
  assert text_inputs.check_texts(AS_BYTES, pairs=False) == [
      (t, None) for t in TEXTS]
  assert text_inputs.check_texts([(AS_BYTES[0], TEXTS[1])]) == [
      (TEXTS[0], TEXTS[1])]
  with pytest.raises(InputError, match=r"^texts" + BAD_INDEX + "$"):
    text_inputs.check_texts(["ok", BAD])
  with pytest.raises(InputError, match=r"^texts\[0\]\[1\]: not valid UTF-8"):
    text_inputs.check_texts([("ok", BAD)])
  with pytest.raises(InputError, match=r"^x\[1\]\[0\]: not valid UTF-8"):
    text_inputs.check_nested_texts((["a"], [BAD]))
  assert text_inputs.check_nested_texts(
      (np.array(AS_BYTES, object), [[b"a", "b"]])) == (TEXTS, [["a", "b"]])


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
  return tiny_dir.write(str(tmp_path_factory.mktemp("tiny")))


def _assert_same(a, b):
  for x, y in zip(a, b):
    if isinstance(x, dict):
      assert sorted(x) == sorted(y)
      _assert_same([x[k] for k in sorted(x)], [y[k] for k in sorted(y)])
    elif isinstance(x, (str, bytes)) or x is None:
      assert x == y
    else:
      np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.slow
def test_python_predictors_take_bytes(ckpt, tmp_path):
  config = ckpt + "/bert_config.json"
  vocab = ckpt + "/vocab.txt"
  cfg = tiny_dir.config()
  classifier = tmp_path / "classifier"
  modeling.save_checkpoint(
      modeling.original_variable_names(BertClassifier(cfg, 2)),
      str(classifier), 1)
  squad = tmp_path / "squad"
  modeling.save_checkpoint(
      modeling.original_variable_names(SquadModel(cfg)), str(squad), 1)
  predictor = ClassifierPredictor(config, str(classifier), vocab, ["x", "y"],
                                  max_seq_length=16)
  _assert_same(predictor.predict(AS_BYTES + [(AS_BYTES[0], AS_BYTES[2])]),
               predictor.predict(TEXTS + [(TEXTS[0], TEXTS[2])]))
  with pytest.raises(InputError, match="^x" + BAD_INDEX):
    predictor.predict(["ok", BAD])

  answers = SquadPredictor(config, str(squad), vocab, max_seq_length=24,
                           max_query_length=6)
  pairs = [("who?", TEXTS[0]), ("where?", TEXTS[1])]
  _assert_same(answers.predict([(q.encode(), c.encode()) for q, c in pairs]),
               answers.predict(pairs))
  with pytest.raises(InputError, match=r"^x\[1\]\[1\]: not valid"):
    answers.predict([pairs[0], ("q", BAD)])

  encoder = FeatureEncoder(config, ckpt + "/bert_model.ckpt", vocab,
                           max_seq_length=16)
  _assert_same(encoder.sentence_vectors(AS_BYTES),
               encoder.sentence_vectors(TEXTS))
  with pytest.raises(InputError, match="texts" + BAD_INDEX):
    encoder.sentence_vectors(["ok", BAD])

  sentences = models.SentenceEncoder.from_dir(ckpt, max_seq_length=16)
  np.testing.assert_array_equal(sentences.encode(AS_BYTES),
                                sentences.encode(TEXTS))
  with pytest.raises(InputError, match="texts" + BAD_INDEX):
    sentences.encode(["ok", BAD])

  choices = MultipleChoicePredictor(
      models.BertMultipleChoice(cfg),
      tokenization.FullTokenizer(vocab, do_lower_case=True), 16)
  np.testing.assert_array_equal(
      choices.predict(AS_BYTES[0], AS_BYTES[1:], question=b"who?"),
      choices.predict(TEXTS[0], TEXTS[1:], question="who?"))
  with pytest.raises(InputError, match=r"choices" + BAD_INDEX):
    choices.predict("ok", ["ok", BAD])


@pytest.mark.slow
def test_raw_string_keras_models_take_bytes(ckpt):
  model = models.text_model(models.BertClassifier, ckpt, num_labels=2,
                            max_seq_length=16)
  np.testing.assert_array_equal(model.predict(AS_BYTES, verbose=0),
                                model.predict(TEXTS, verbose=0))
  pairs = [(AS_BYTES[0], AS_BYTES[1])]
  np.testing.assert_array_equal(
      model.predict(pairs, verbose=0),
      model.predict([(TEXTS[0], TEXTS[1])], verbose=0))
  with pytest.raises(InputError, match=r"^x" + BAD_INDEX):
    model.predict(["ok", BAD], verbose=0)
  ner = models.text_model(models.BertTokenClassifier, ckpt,
                          labels=["O", "B-PER", "I-PER"], max_seq_length=16)
  words = [t.split() for t in TEXTS]
  byte_words = [[w.encode("utf-8") for w in row] for row in words]
  assert ner.predict(byte_words, verbose=0) == ner.predict(words, verbose=0)
  assert ner.predict(AS_BYTES, verbose=0) == ner.predict(TEXTS, verbose=0)
  with pytest.raises(InputError, match=r"^x\[1\]\[0\]: not valid UTF-8"):
    ner.predict([["ok"], [BAD]], verbose=0)
  squad = models.squad_text_model(ckpt, max_seq_length=24, doc_stride=8,
                                  max_query_length=6)
  got = squad.predict(([b"who?"], [AS_BYTES[0]]), verbose=0)
  want = squad.predict((["who?"], [TEXTS[0]]), verbose=0)
  _assert_same([got], [want])
  with pytest.raises(InputError, match=r"^x\[1\]\[0\]: not valid UTF-8"):
    squad.predict((["who?"], [BAD]), verbose=0)


@pytest.mark.slow
def test_entity_tagger_takes_bytes(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  for name in ("train.txt", "dev.txt", "test.txt"):
    (data / name).write_text("paris B-LOC\nis O\n\nbob B-PER\nran O\n")
  vocab, config = fixtures.tiny_model_files(tmp_path,
                                            ["paris", "bob", "is", "ran"])
  ner_job.run(ner_flags.default_options(
      data_dir=str(data), vocab_file=vocab, bert_config_file=config,
      output_dir=str(tmp_path / "out"), do_train=True, max_seq_length=16,
      doc_stride=4,
      train_batch_size=2, num_train_epochs=1.0))
  tagger = models.load_predictor(str(tmp_path / "out"))
  assert isinstance(tagger, EntityTagger)
  texts = ["Paris is", "bob ran to Paris", "江泽民"]
  assert tagger([t.encode("utf-8") for t in texts]) == tagger(texts)
  with pytest.raises(InputError, match=r"^texts" + BAD_INDEX + "$"):
    tagger(["ok", BAD])
