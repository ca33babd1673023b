"""`bert_tf2.models.load` / `load_predictor`: the docs' examples run as
written (docs/prediction.md "A run's output_dir is the model", docs/keras.md
"A training run's output_dir, in one call"), on a run's output_dir made
here (model.json + copies + a checkpoint of a CRF tagger with BIO
constraints) and a tiny pretrained directory named as in the examples.
Explicit arguments override the record and are checked against the
weights in one line."""

import os
import re

import keras
import pytest

from bert_tf2 import models
from bert_tf2.common import InputError
from bert_tf2.ner import crf
from bert_tf2.ner.model import BertTokenClassifier
from tests.common import tiny_dir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def _example(doc, heading):
  with open(os.path.join(REPO, "docs", doc), encoding="utf-8") as f:
    section = f.read().split(heading, 1)[1]
  return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def _ner_run(directory):
  """A run_ner.py --crf output_dir as the driver leaves it."""
  allowed = [a.tolist() for a in crf.allowed_transitions(LABELS, "BIO")]
  keras.utils.set_random_seed(1)
  model = BertTokenClassifier(tiny_dir.config(), len(LABELS), crf=True,
                              allowed=allowed)
  return tiny_dir.write_run(
      directory, "ner", model,
      preprocessor=dict(do_lower_case=True, max_seq_length=12, doc_stride=4),
      head=dict(labels=LABELS, crf=True, allowed=allowed))


@pytest.fixture
def cwd(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  _ner_run("ner_output")
  os.makedirs("uncased_L-12_H-768_A-12")
  tiny_dir.write("uncased_L-12_H-768_A-12")
  return tmp_path


def test_prediction_docs_example(cwd):
  del cwd
  scope = {}
  exec(compile(_example("prediction.md", "## A run's output_dir is the "  # pylint: disable=exec-used
                        "model"), "docs/prediction.md", "exec"), scope)
  model, answer = scope["model"], scope["answer"]
  # The run's settings, nothing re-supplied: windows, CRF and constraints.
  assert model.preprocessor.max_seq_length == 12
  assert model.preprocessor.doc_stride == 4
  assert model.task.crf is not None and model.task.crf.allowed is not None
  assert sorted(answer) == ["entities", "tags", "words"]
  assert answer["tags"] == scope["tags"][0]
  assert answer["words"] == ["anna", "met", "bob", "in", "paris", "."]
  # BIO-legal paths only (the recorded constraints act).
  for before, tag in zip(["O"] + answer["tags"], answer["tags"]):
    assert not tag.startswith("I-") or before[2:] == tag[2:], answer["tags"]
  assert os.path.exists(os.path.join("ner_serving", "saved_model.pb"))
  assert scope["clf"].task.num_labels == 2


def test_keras_docs_example(cwd):
  del cwd
  scope = {"texts": ["anna met bob", "bob in paris"],
           "tags": [["B-PER", "O", "B-PER"], ["B-PER", "O", "B-LOC"]]}
  exec(compile(_example("keras.md", "### A training run's output_dir"),  # pylint: disable=exec-used
               "docs/keras.md", "exec"), scope)
  assert scope["model"].task.crf.allowed is not None


def test_explicit_arguments_override_and_are_checked(cwd):
  del cwd
  longer = models.load("ner_output", max_seq_length=16)
  assert longer.preprocessor.max_seq_length == 16
  assert longer.preprocessor.doc_stride == 4  # The rest is the run's.
  with pytest.raises(InputError) as e:
    models.load("ner_output", labels=LABELS[:3])  # A head of 3 tags.
  assert "\n" not in str(e.value) and "shape" in str(e.value), str(e.value)
  with pytest.raises(InputError, match="not a 'classifier' one"):
    models.load("ner_output", task="classifier")
  with pytest.raises(InputError, match="give task="):
    models.load("uncased_L-12_H-768_A-12")
  # text_model on the output_dir reads the same record.
  tagger = models.text_model(models.BertTokenClassifier, "ner_output")
  texts = ["anna met bob in paris ."]
  assert tagger.predict(texts, verbose=0) == models.load(
      "ner_output").predict(texts, verbose=0)
  allowed = [a.tolist() for a in crf.allowed_transitions(LABELS, "BIO")]
  assert tagger.task.crf.allowed == allowed
