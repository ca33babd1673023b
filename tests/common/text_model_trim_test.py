"""TextModel runs outside training at each batch's longest text: the same
outputs as at max_seq_length, for the classifier (one text and pairs,
sliding windows), the sentence encoder and multiple choice; NER and SQuAD
(per-piece outputs) keep the full length."""

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2 import models
from bert_tf2.common.text_model import TextModel
from tests.common import tiny_dir

TEXTS = ["bob met ann", "the cat sat on the mat . " * 9, "", "a dog ran"]


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
  return tiny_dir.write(str(tmp_path_factory.mktemp("tiny")))


def _both(model, x):
  """(outputs at each batch's longest text, outputs at max_seq_length)."""
  trimmed = model.predict(x, batch_size=4, verbose=0)
  model.trims_padding = False
  model.make_predict_function(force=True)
  try:
    full = model.predict(x, batch_size=4, verbose=0)
  finally:
    del model.trims_padding
  return trimmed, full


@pytest.mark.parametrize("case", ["classifier", "pairs", "windows",
                                  "embedding", "multiple_choice"])
def test_trimmed_outputs_equal_full_length(directory, case):
  if case == "embedding":
    model = models.load(directory, task="embedding", max_seq_length=64,
                        precision="float32")
  elif case == "multiple_choice":
    model = models.load(directory, task="multiple_choice",
                        max_seq_length=64, precision="float32")
  else:
    windows = {"long_text": "sliding_window", "doc_stride": 8} if (
        case == "windows") else {}
    model = models.load(directory, task="classifier", num_labels=3,
                        max_seq_length=64, precision="float32", **windows)
  x = [(t, "ann") for t in TEXTS] if case == "pairs" else TEXTS
  if case == "multiple_choice":
    x = (TEXTS, ["bob"] * 4, [["a cat", "the dog " * 20]] * 4)
  trimmed, full = _both(model, x)
  np.testing.assert_allclose(trimmed, full, atol=1e-5)
  # The task sees the batch's longest text exactly (the first batch: the
  # short texts; the windows are at most doc_stride apart).
  assert isinstance(model, TextModel)
  first = tf.constant([TEXTS[0]])
  features = model.preprocessor(
      (first, tf.constant(["ann"])) if case == "pairs" else
      (first, tf.constant(["bob"]), tf.constant([["a", "cat"]]))
      if case == "multiple_choice" else first)
  lengths = model.task_features(features)["input_ids"].shape[-1]
  mask = features["input_mask"].numpy().reshape([-1, 64])
  assert lengths == np.flatnonzero(mask.any(axis=0)).max() + 1, lengths
  if case in ("classifier", "windows"):
    assert lengths == 5, lengths  # [CLS] bob met ann [SEP], not rounded up.
  assert model.task_features(features, training=True)[
      "input_ids"].shape[-1] == 64


def test_per_piece_text_models_keep_the_full_length():
  from bert_tf2.ner.text_model import TokenTextModel  # pylint: disable=g-import-not-at-top
  from bert_tf2.squad.text_model import SquadTextModel  # pylint: disable=g-import-not-at-top
  assert not TokenTextModel.trims_padding
  assert not SquadTextModel.trims_padding
