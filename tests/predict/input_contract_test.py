"""One input contract per task on every Python path (issue 62, item 2).

Per task, every path that answers raw text takes the same inputs and
gives the same answers: `models.load_predictor(dir).predict`, the Keras
text model's `predict` (`models.load(dir)`), the older predictors
(`ClassifierPredictor`, `SquadPredictor` `.from_output_dir(dir)`),
`EntityTagger` of the exported SavedModel, `SentenceEncoder.encode`,
`MultipleChoicePredictor`'s one-example form. The docs' own examples
(docs/prediction.md, docs/keras.md, docs/multiple_choice.md,
docs/embedding.md) are inputs here. Each wrong input is one `InputError`
line, the same on every path (the argument's name aside where a path
names it otherwise: `encode(texts)`, `tagger(texts)`).

Tiny runs with widely spread weights (initializer_range 0.5), so that
answers of different inputs differ far beyond the tolerances.
"""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.common import InputError
from bert_tf2.multiple_choice.predictor import MultipleChoicePredictor
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.ner.predictor import EntityTagger
from bert_tf2.ner.predictor import served_answers
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.predictor import SquadPredictor
from tests.common import tiny_dir

# docs/prediction.md, "The task predictors".
DOCS_CLASSIFIER = ["a gripping, beautiful film",
                   ("The cat sat.", "A cat was sitting.")]
DOCS_SQUAD = [("Who wrote it?", "It was written by Ann Smith in 1901.")]
# docs/keras.md, "Multiple choice and sentence embeddings" and SQuAD.
DOCS_CONTEXTS = ["She opened the umbrella", "He sat down"]
DOCS_CHOICES = [["because it rained.", "because it was sunny."],
                ["on the chair.", "on the ceiling."]]
DOCS_QUESTIONS = (["Who wrote it?", "When?"],
                  ["It was written by Ann in 1901."] * 2)
# docs/multiple_choice.md, "Prediction"; docs/embedding.md.
DOCS_ONE_CHOICE = ("It rained all night.", ["The grass is wet.",
                                           "The grass is dry."])
DOCS_SENTENCES = ["A man is eating food.", "A man eats bread."]
# docs/prediction.md, "A run's output_dir is the model".
DOCS_NER = ["Anna met Bob in Paris."]

TEXTS = ["angela merkel visited paris.", "the cat sat on the mat",
         "bob met ann in paris , the dog ran"]
PAIRS = [("the cat sat", "a dog ran"), ("bob met ann", "in paris.")]
QA = [("who ran?", "the dog ran on the mat."),
      ("who sat?", "the cat sat . bob met ann in paris , the dog ran"),
      ("where?", "angela merkel visited paris.")]
NER_LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]

# Wrong inputs, each refused on every path of its task.
REFUSED_TEXT_OR_PAIR = [None, 3, "a bare text", [("a", "b", "c")],
                        ["the cat", None], [["the cat"]], ["the cat", 7.5],
                        (["a"], ["b", "c"]), (["a"], ["b"], ["c"]),
                        [b"\xff cat"], ["paris \ud800"]]
REFUSED_QA = [None, 3, "who?", ["who?"], [("who?", "ctx", "more")],
              [("who?", None)], (["q1", "q2"], ["c1"]),
              (["q"], ["c"], ["x"]), [("who?", b"\xffctx")]]
REFUSED_TEXTS = [None, 3, "a bare text", ["the cat", None], ["the cat", 7],
                 [b"\xff cat"], ["the cat", ["a", "list"]]]


def _spread_config():
  config = tiny_dir.config()
  config.initializer_range = 0.5
  return config


# Every load at its default, on a faked bfloat16 CPU (`bfloat16_cpu`): the
# paths agree in the runs' recorded precision (float32), not the CPU's.
pytestmark = pytest.mark.usefixtures("bfloat16_cpu")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
  keras.utils.set_random_seed(3)
  root = str(tmp_path_factory.mktemp("contract"))
  config = _spread_config()
  pretrained = os.path.join(root, "pretrained")
  os.makedirs(pretrained)
  tiny_dir.write(pretrained)
  return {
      "classifier": tiny_dir.write_run(
          os.path.join(root, "classifier"), "classifier",
          BertClassifier(config, 2),
          preprocessor=dict(do_lower_case=True, max_seq_length=16),
          head=dict(num_labels=2), outputs=dict(labels=["no", "yes"])),
      "squad": tiny_dir.write_run(
          os.path.join(root, "squad"), "squad", SquadModel(config),
          preprocessor=dict(do_lower_case=True, max_seq_length=24,
                            doc_stride=8, max_query_length=6), head={}),
      "ner": tiny_dir.write_run(
          os.path.join(root, "ner"), "ner",
          BertTokenClassifier(config, len(NER_LABELS)),
          preprocessor=dict(do_lower_case=True, max_seq_length=16,
                            doc_stride=4),
          head=dict(labels=NER_LABELS)),
      "pretrained": pretrained, "root": root}


def _refusal(fn, x):
  """The one-line InputError message of fn(x)."""
  with pytest.raises(InputError) as e:
    fn(x)
  message = str(e.value)
  assert message and "\n" not in message, message
  return message


def _same_refusals(paths, refused, renamed=()):
  """Each of `refused` is one InputError line, identical on every path
  (paths in `renamed` name their argument "texts": read as "x")."""
  for x in refused:
    messages = {}
    for name, fn in paths.items():
      message = _refusal(fn, x)
      if name in renamed:
        assert message.startswith("texts"), (name, message)
        message = "x" + message[len("texts"):].replace("texts[", "x[")
      messages[name] = message
    assert len(set(messages.values())) == 1, (x, messages)


def _softmax(logits):
  e = np.exp(logits - logits.max(-1, keepdims=True))
  return e / e.sum(-1, keepdims=True)


def test_classifier_one_contract(runs):
  directory = runs["classifier"]
  predictor = models.load_predictor(directory)
  older = ClassifierPredictor.from_output_dir(directory)
  model = models.load(directory)
  for x in (DOCS_CLASSIFIER, TEXTS + PAIRS, PAIRS + TEXTS,
            tuple(TEXTS + PAIRS)):
    ours = predictor.predict(x)
    theirs = older.predict(x)
    logits = model.predict(x, verbose=0)
    assert len(ours) == len(theirs) == len(logits) == len(x)
    assert [r["label"] for r in ours] == [r["label"] for r in theirs]
    np.testing.assert_allclose([r["probabilities"] for r in ours],
                               [r["probabilities"] for r in theirs],
                               atol=1e-5)
    np.testing.assert_allclose([r["logits"] for r in ours], logits,
                               atol=1e-5)
  # Mixed answers are each example's own answer, in input order.
  alone = [predictor.predict([t])[0]["probabilities"]
           for t in TEXTS + PAIRS]
  np.testing.assert_allclose(
      [r["probabilities"] for r in predictor.predict(TEXTS + PAIRS)], alone,
      atol=1e-5)
  assert np.abs(np.diff(np.stack(alone)[:, 1])).max() > 1e-2
  # The columns (texts_a, texts_b) are the same examples as the pairs.
  columns = tuple(list(c) for c in zip(*PAIRS))
  for fn in (predictor.predict, older.predict):
    np.testing.assert_allclose(
        [r["probabilities"] for r in fn(columns)],
        [r["probabilities"] for r in fn(PAIRS)], atol=1e-5)
  np.testing.assert_allclose(model.predict(columns, verbose=0),
                             model.predict(PAIRS, verbose=0), atol=1e-5)
  _same_refusals({"load_predictor": predictor.predict,
                  "from_output_dir": older.predict,
                  "keras": lambda x: model.predict(x, verbose=0)},
                 REFUSED_TEXT_OR_PAIR)


def test_squad_one_contract(runs):
  directory = runs["squad"]
  predictor = models.load_predictor(directory)
  older = SquadPredictor.from_output_dir(directory)
  model = models.load(directory)
  columns = tuple(list(c) for c in zip(*QA))
  for x in (DOCS_SQUAD, QA, QA[:2], columns, DOCS_QUESTIONS):
    ours = predictor.predict(x)
    theirs = older.predict(x)
    graph = model.predict(x, verbose=0)
    n = len(x) if isinstance(x, list) else len(x[0])
    assert len(ours) == len(theirs) == len(graph["answer"]) == n
    # The answers are get_final_text's on every path.
    assert [r["answer"] for r in ours] == [r["answer"] for r in theirs]
    assert [r["answer"] for r in ours] == list(graph["answer"])
    np.testing.assert_allclose([r["score"] for r in ours],
                               [r["score"] for r in theirs], atol=1e-4)
  # Two pairs are two examples (once read as the columns of one).
  assert [r["answer"] for r in predictor.predict(QA[:2])] == [
      predictor.predict([qa])[0]["answer"] for qa in QA[:2]]
  assert len({r["answer"] for r in predictor.predict(QA)}) > 1
  _same_refusals({"load_predictor": predictor.predict,
                  "from_output_dir": older.predict,
                  "keras": lambda x: model.predict(x, verbose=0)},
                 REFUSED_QA)


def test_ner_one_contract(runs, tmp_path):
  directory = runs["ner"]
  tagger = models.load_predictor(directory)
  model = models.load(directory)
  export_dir = tagger.export(str(tmp_path / "ner_export"))
  serve = tf.saved_model.load(export_dir).signatures["serving_default"]
  for x in (DOCS_NER, TEXTS):
    ours = tagger.predict(x)
    assert [r["tags"] for r in ours] == model.predict(x, verbose=0)
    assert served_answers(x, serve(text=tf.constant(x))) == ours
    assert tagger(x) == [r["entities"] for r in ours]
  assert len({tuple(r["tags"]) for r in tagger.predict(TEXTS)}) > 1
  # Word lists, as the Keras model takes them: the same tags, the words
  # as given, entity offsets in the words joined by spaces.
  words = [t.split() for t in TEXTS]
  ours = tagger.predict(words)
  assert [r["tags"] for r in ours] == model.predict(words, verbose=0)
  assert [r["words"] for r in ours] == words
  for r, w in zip(ours, words):
    for entity in r["entities"]:
      assert " ".join(w)[entity["start"]:entity["end"]] == entity["text"]
  assert any(r["entities"] for r in ours)
  # A SavedModel's directory is not a predictor: one line naming the calls.
  message = _refusal(EntityTagger, export_dir)
  assert "load_predictor(output_dir)" in message
  assert "served_answers(texts, outputs)" in message
  paths = {"load_predictor": tagger.predict, "entities": tagger,
           "keras": lambda x: model.predict(x, verbose=0)}
  _same_refusals(paths, REFUSED_TEXTS, renamed=("entities",))


def test_embedding_one_contract(runs):
  directory = runs["pretrained"]
  predictor = models.load_predictor(directory, task="embedding",
                                    max_seq_length=16)
  model = models.load(directory, task="embedding", max_seq_length=16)
  encoder = models.SentenceEncoder.from_dir(directory, max_seq_length=16)
  for x in (DOCS_SENTENCES, TEXTS):
    vectors = np.stack([r["embedding"] for r in predictor.predict(x)])
    assert vectors.shape == (len(x), tiny_dir.config().hidden_size)
    np.testing.assert_allclose(vectors, model.predict(x, verbose=0),
                               atol=1e-5)
    np.testing.assert_allclose(vectors, encoder.encode(x), atol=1e-5)
  # A pair is not an example of a sentence encoder on any path (it was
  # [2, hidden] from `load_predictor`, refused by `encode`).
  _same_refusals({"load_predictor": predictor.predict,
                  "keras": lambda x: model.predict(x, verbose=0),
                  "encode": encoder.encode},
                 REFUSED_TEXTS + [PAIRS, ["the cat", ("a", "b")]],
                 renamed=("encode",))


def test_multiple_choice_one_contract(runs):
  directory = runs["pretrained"]
  predictor = models.load_predictor(directory, task="multiple_choice",
                                    max_seq_length=16)
  model = models.load(directory, task="multiple_choice", max_seq_length=16)
  assert isinstance(predictor, MultipleChoicePredictor)
  x = (DOCS_CONTEXTS, DOCS_CHOICES)
  ours = np.stack([r["probabilities"] for r in predictor.predict(x)])
  np.testing.assert_allclose(ours, _softmax(model.predict(x, verbose=0)),
                             atol=1e-5)
  one = predictor.predict(*DOCS_ONE_CHOICE)
  batch = predictor.predict(([DOCS_ONE_CHOICE[0]], [DOCS_ONE_CHOICE[1]]))
  np.testing.assert_allclose(one, batch[0]["probabilities"], atol=1e-6)
  _same_refusals({"load_predictor": predictor.predict,
                  "keras": lambda x: model.predict(x, verbose=0)},
                 [None, 3, "a bare text", (DOCS_CONTEXTS, [None, None]),
                  ([b"\xff"], [["a", "b"]])])


if __name__ == "__main__":
  pytest.main([__file__])
