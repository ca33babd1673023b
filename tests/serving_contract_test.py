"""The raw-string SavedModels keep their documented serving contract.

Every task's SavedModel, written as the scripts and predictors write it from
a tiny model, has the signature names, input names, dtypes and shapes and
output names, dtypes and shapes of tests/serving_contract_snapshot.json.
The snapshot was written (UPDATE_SERVING_SNAPSHOT=1) before the servers
became one `common.serving.TextServer` (issue 37); a change here breaks
users' serving code and must be deliberate.
"""

import json
import os

import pytest

from bert_tf2.classifier import serving as classifier_serving
from bert_tf2.common import saved_model
from bert_tf2.common import serving
from bert_tf2.embedding import serving as embedding_serving
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.multiple_choice import serving as mc_serving
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.ner import serving as ner_serving
from bert_tf2.ner.preprocessor import NerPreprocessor
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.squad.predictor import SquadPredictor
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.runner.task import ModelTask
from tests.common import tiny_dir
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor

SNAPSHOT = os.path.join(os.path.dirname(__file__),
                        "serving_contract_snapshot.json")
SEQ = 16


def _spec(spec):
  return [spec.dtype.name, None if spec.shape.rank is None
          else spec.shape.as_list()]


def contract(signatures):
  """{signature: {"inputs": {name: [dtype, shape]}, "outputs": ...}} of
  the {name: tf.function} a SavedModel is written with (what a loaded
  model's `signatures` show; tracing them skips the minutes of writing)."""
  out = {}
  for name, fn in sorted(signatures.items()):
    concrete = fn.get_concrete_function()
    args, kwargs = concrete.structured_input_signature
    inputs = dict(kwargs, **{spec.name: spec for spec in args})
    out[name] = {
        "inputs": {k: _spec(v) for k, v in sorted(inputs.items())},
        "outputs": {k: _spec(v) for k, v in
                    sorted(concrete.structured_outputs.items())}}
  return out


def _exports(d):
  """{case: writer(export_dir)} for every raw-string SavedModel kind."""
  model_dir = tiny_dir.write(str(d / "tiny"))
  cfg = tiny_dir.config()
  vocab = os.path.join(model_dir, "vocab.txt")
  config_file = os.path.join(model_dir, "bert_config.json")
  ckpt = os.path.join(model_dir, "bert_model.ckpt")
  labels = ["a", "b", "c"]

  def restored(model_fn):  # What the scripts' export does first.
    return saved_model.restore_model(ModelTask(model_fn), ckpt)

  def classifier(model_fn, label_list=labels, **kwargs):
    def write(out):
      model = restored(model_fn)
      return serving.write_saved_model(classifier_serving.classifier_server(
          model, BertPreprocessor(vocab, max_seq_length=SEQ, **kwargs),
          label_list), out)
    return write

  def predictor(**kwargs):
    return lambda out: ClassifierPredictor(
        config_file, ckpt, vocab, max_seq_length=SEQ, **kwargs).export(out)

  def ner(crf):
    return lambda out: serving.write_saved_model(ner_serving.ner_server(
        restored(lambda: BertTokenClassifier(cfg, 3, crf=crf)),
        NerPreprocessor(vocab, labels=["O", "B-PER", "I-PER"],
                        max_seq_length=SEQ, doc_stride=4)), out)

  return {
      "classifier": classifier(lambda: BertClassifier(cfg, 3)),
      "classifier_sliding_window": classifier(
          lambda: BertClassifier(cfg, 3), long_text="sliding_window",
          doc_stride=4),
      "classifier_regression": classifier(lambda: BertClassifier(cfg, 1),
                                          label_list=[None]),
      "classifier_multi_label": classifier(
          lambda: BertClassifier(cfg, 3, multi_label=True)),
      "classifier_predictor_sliding_window": predictor(
          label_list=labels, long_text="sliding_window", doc_stride=4),
      "ner": ner(crf=False),
      "ner_crf": ner(crf=True),
      "multiple_choice": lambda out: serving.write_saved_model(
          mc_serving.multiple_choice_server(
              BertMultipleChoice(cfg),
              MultipleChoicePreprocessor(vocab, max_seq_length=SEQ)), out),
      "embedding": lambda out: serving.write_saved_model(
          embedding_serving.embedding_server(
              SentenceEncoder(cfg),
              BertPreprocessor(vocab, max_seq_length=SEQ)),
          out),
      "features": lambda out: FeatureEncoder(
          config_file, ckpt, vocab, max_seq_length=SEQ,
          layers=(-1, 0)).export(out),
      "squad": lambda out: SquadPredictor(
          config_file, ckpt, vocab, max_seq_length=32, doc_stride=8,
          max_query_length=8).export(out),
  }


@pytest.fixture(scope="module")
def contracts(tmp_path_factory):
  """Every case written through its public export function, with the one
  SavedModel writer (`common.saved_model.save_atomically`) recording the
  signatures instead of writing (tests/predict and the cross-path tests
  load the written models)."""
  d = tmp_path_factory.mktemp("serving_contract")
  seen = {}

  def record(module, export_dir, signatures, what="export_dir",
             extra_files=None):
    del module, what, extra_files
    seen[export_dir] = contract(signatures)
    return export_dir
  with pytest.MonkeyPatch.context() as patch:
    patch.setattr(saved_model, "save_atomically", record)
    for case, write in _exports(d).items():
      write(str(d / case))
  return {case: seen[str(d / case)] for case in _exports(d)}


def test_signatures_inputs_and_outputs_unchanged(contracts):
  if os.environ.get("UPDATE_SERVING_SNAPSHOT"):
    with open(SNAPSHOT, "w") as f:
      json.dump(contracts, f, indent=1, sort_keys=True)
      f.write("\n")
  with open(SNAPSHOT) as f:
    expected = json.load(f)
  assert sorted(contracts) == sorted(expected)
  for case in expected:
    assert contracts[case] == expected[case], case
