"""Raw-text inputs on every Python path (issue 63): the Keras text model's
`predict`, `models.load_predictor(...).predict` (a `TextPredictor`) and
`ClassifierPredictor.predict` answer or refuse each odd input as
documented in `bert_tf2.common.text_inputs`: one InputError line
naming the item's index, never TensorFlow's or Keras' own error; texts
and (text_a, text_b) pairs mixed in one list are answered on every path
(issue 62, item 2)."""

import keras
import numpy as np
import pytest

from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.common import InputError
from tests.common import tiny_dir

PATHS = ("keras", "load_predictor", "classifier_predictor")


@pytest.fixture(scope="module")
def predictors(tmp_path_factory):
  keras.utils.set_random_seed(1)
  directory = tiny_dir.write_run(
      str(tmp_path_factory.mktemp("inputs") / "run"), "classifier",
      BertClassifier(tiny_dir.config(), 2),
      preprocessor=dict(do_lower_case=True, max_seq_length=12),
      head=dict(num_labels=2), outputs=dict(labels=["no", "yes"]))
  return {"keras": models.load(directory).predict,
          "load_predictor": models.load_predictor(directory).predict,
          "classifier_predictor":
              ClassifierPredictor.from_output_dir(directory).predict}


def _call(predictors, path, x):
  if path == "keras":
    return predictors[path](x, verbose=0)
  return predictors[path](x)


# (id, x, words of the one-line refusal; every path).
REFUSED = [
    ("bare_string", "the cat sat", ["single str", "[text]"]),
    ("none_item", ["the cat", None], ["[1]", "None"]),
    ("number_item", ["the cat", 7], ["[1]", "int"]),
    ("float_item", [1.5], ["[0]", "float"]),
    ("lone_surrogate", ["the cat", "paris \ud800"], ["[1]", "surrogate",
                                                     "D800"]),
    ("bad_utf8_bytes", [b"\xff the"], ["[0]", "UTF-8"]),
    ("none", None, ["None"]),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case,x,words", REFUSED,
                         ids=[c[0] for c in REFUSED])
def test_a_bad_input_is_one_line_naming_the_item(predictors, path, case, x,
                                                 words):
  del case
  with pytest.raises(InputError) as e:
    _call(predictors, path, x)
  message = str(e.value)
  assert "\n" not in message, message
  for word in words:
    assert word in message, (word, message)


def test_mixed_texts_and_pairs_are_answered_on_every_path(predictors):
  mixed = ["the cat", ("a", "b")]
  alone = np.concatenate([_call(predictors, "keras", ["the cat"]),
                          _call(predictors, "keras", [("a", "b")])])
  np.testing.assert_allclose(_call(predictors, "keras", mixed), alone,
                             atol=1e-6)
  for path in ("load_predictor", "classifier_predictor"):
    np.testing.assert_allclose(
        [r["probabilities"] for r in _call(predictors, path, mixed)],
        [r["probabilities"] for r in _call(predictors, path, mixed[:1]) +
         _call(predictors, path, mixed[1:])], atol=1e-6)


def test_an_empty_list(predictors):
  assert predictors["load_predictor"]([]) == []
  assert predictors["classifier_predictor"]([]) == []
  with pytest.raises(InputError, match="no texts") as e:
    _call(predictors, "keras", [])
  assert "\n" not in str(e.value)


def _labels(answers, path):
  if path == "keras":
    return np.asarray(answers)
  return np.array([a["probabilities"] for a in answers])


@pytest.mark.parametrize("path", PATHS)
def test_nul_is_removed_as_the_tokenizer_does(predictors, path):
  with_nul = _labels(_call(predictors, path, ["the c\x00at sat", "paris"]),
                     path)
  without = _labels(_call(predictors, path, ["the cat sat", "paris"]), path)
  np.testing.assert_array_equal(with_nul, without)


@pytest.mark.parametrize("path", PATHS)
def test_a_one_megabyte_text_is_answered_as_its_first_window(predictors,
                                                             path):
  text = "the cat sat on the mat " * ((1 << 20) // 23 + 1)
  assert len(text) >= 1 << 20
  long = _labels(_call(predictors, path, [text]), path)
  head = _labels(_call(predictors, path, [text[:230]]), path)
  np.testing.assert_allclose(long, head, atol=1e-6)
