"""The Python predictors are the text model plus batching (issue 45, item 3).

`ClassifierPredictor.from_output_dir(dir)` answers as
`bert_tf2.models.load_predictor(dir)` (the task's raw-string Keras model and
its answer function) on the same run's output_dir, with the run's sliding
windows and multi-label threshold recorded in model.json; each recorded
setting is shown to change the answers, so a predictor that made its own
features or answers with one of them dropped fails. `FeatureEncoder`'s
features are extract_features.py's (`convert_example`), pair truncation
included.
"""

import numpy as np
import pytest
import tensorflow as tf

import tokenization
from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.common import artifact
from bert_tf2.feature_extraction import examples as examples_lib
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.predict.text import TextPredictor
from tests.predict.predict_test import CONFIG
from tests.predict.predict_test import LONG_PAIRS
from tests.predict.predict_test import LONG_TEXTS
from tests.predict.predict_test import TEXTS
from tests.predict.predict_test import files  # pylint: disable=unused-import
from tests.predict.predict_test import _checkpoint

LABELS = ["a", "b", "c"]
THRESHOLD = 0.3


def _run_dir(files, name, preprocessor, model):  # pylint: disable=redefined-outer-name
  """A classifier run's output_dir: a tiny checkpoint and its model.json."""
  directory = files["root"] / name
  _checkpoint(BertClassifier(CONFIG, len(LABELS), **model), directory)
  artifact.write(str(directory), "classifier", files["config"],
                 files["vocab"],
                 preprocessor=dict(do_lower_case=True, max_seq_length=16,
                                   **preprocessor),
                 model=dict(num_labels=len(LABELS), **model),
                 outputs=dict(labels=LABELS))
  return str(directory)


def _same(ours, theirs, names):
  """ours (ClassifierPredictor rows) equal theirs (load_predictor's)."""
  for o, t in zip(ours, theirs, strict=True):
    for name in names:
      if name == "probabilities":
        np.testing.assert_allclose(o[name], t[name], atol=1e-5)
      else:
        assert o[name] == t[name]


def _answers(predictor, x):
  """predictor.predict of the single texts of x, then of its pairs (the
  text model takes one kind per call)."""
  singles = [t for t in x if isinstance(t, str)]
  pairs = [t for t in x if not isinstance(t, str)]
  return predictor.predict(singles) + predictor.predict(pairs)


def _probabilities(rows):
  return np.stack([r["probabilities"] for r in rows])


def test_sliding_window_classifier_answers_as_load_predictor(files):  # pylint: disable=redefined-outer-name
  out = _run_dir(files, "windows_run",
                 dict(long_text="sliding_window", doc_stride=4), {})
  x = LONG_TEXTS + LONG_PAIRS
  theirs = _answers(models.load_predictor(out, precision="float32"), x)
  ours = ClassifierPredictor.from_output_dir(out, precision="float32")
  windows = ours.model.preprocessor(tf.constant(LONG_TEXTS))
  assert np.bincount(windows["window_example"]).max() > 3
  answers = _answers(ours, x)
  _same(answers, theirs, ("label", "probabilities"))
  # One predictor: the same class of runtime, the same named answers.
  assert isinstance(ours, TextPredictor)
  assert [sorted(a) for a in answers] == [sorted(t) for t in theirs]
  # The windows matter: without them (or at another stride) the answers
  # differ, so a predictor that dropped the recorded setting fails above.
  for dropped in (dict(long_text="truncate"), dict(doc_stride=8)):
    other = _answers(ClassifierPredictor.from_output_dir(
        out, precision="float32", **dropped), x)
    assert np.abs(_probabilities(other) - _probabilities(theirs)).max() > 1e-3


def test_multi_label_threshold_answers_as_load_predictor(files):  # pylint: disable=redefined-outer-name
  out = _run_dir(files, "multi_label_run", {},
                 dict(multi_label=True, threshold=THRESHOLD))
  x = TEXTS + LONG_TEXTS
  theirs = _answers(models.load_predictor(out, precision="float32"), x)
  ours = _answers(ClassifierPredictor.from_output_dir(
      out, precision="float32"), x)
  _same(ours, theirs, ("labels", "probabilities"))
  # The threshold matters: some probability lies clearly between it and
  # the default 0.5, so a predictor at the default answers other labels.
  probabilities = _probabilities(theirs)
  assert np.any((probabilities > THRESHOLD + 0.02) &
                (probabilities < 0.5 - 0.02))
  default = _answers(ClassifierPredictor.from_output_dir(
      out, precision="float32", threshold=0.5), x)
  assert [d["labels"] for d in default] != [t["labels"] for t in theirs]


def test_feature_encoder_inputs_are_extract_features(files):  # pylint: disable=redefined-outer-name
  encoder = FeatureEncoder(files["config"], files["bert"], files["vocab"],
                           max_seq_length=12, precision="float32")
  tokenizer = tokenization.FullTokenizer(files["vocab"], do_lower_case=True)
  x = TEXTS + LONG_PAIRS
  for i, (row, text) in enumerate(zip(encoder.encode(x), x, strict=True)):
    a, b = (text, None) if isinstance(text, str) else text
    expected = examples_lib.convert_example(
        examples_lib.InputExample(i, a, b), 12, tokenizer).tokens
    assert row["tokens"] == expected
    assert row["token_vectors"].shape[0] == len(expected)
  assert max(len(r["tokens"]) for r in encoder.encode(x)) == 12


if __name__ == "__main__":
  pytest.main([__file__])
