"""SentenceTextModel: predict(texts) equals SentenceEncoder.encode (the
Python tokenizer's features); fit on (anchor, positive) pairs trains the
multiple-negatives ranking loss."""

import keras
import numpy as np
import pytest

import tokenization
from bert_tf2 import models
from bert_tf2.embedding.encoder import SentenceEncoder
from tests.common import tiny_dir

ANCHORS = ["the cat sat on the mat", "a dog ran", "bob met ann in paris",
           "江泽民在北京"]
POSITIVES = ["cat sat", "the dog ran", "ann met bob", "北京"]


@pytest.mark.slow
def test_predict_equals_encode_and_fit_on_pairs(tmp_path):
  ckpt = tiny_dir.write(str(tmp_path))  # The same weights on every run.
  # Mean pooling: the [CLS] vector of a random one-layer model is nearly the
  # same for every text (cosines ~1), so the ranking loss starts and stays
  # at chance (ln 4 = 1.38629) for a few steps, and "loss went down" was a
  # near-tie decided by rounding (issue 38). Mean-pooled vectors differ per
  # text, and 3 epochs bring the loss from ~0.8 to ~0.002.
  model = models.text_model(SentenceEncoder, ckpt, max_seq_length=16,
                            pooling_mode="mean")
  reference = SentenceEncoder.from_dir(ckpt, max_seq_length=16,
                                       pooling_mode="mean")
  assert isinstance(reference.tokenizer, tokenization.FullTokenizer)
  np.testing.assert_allclose(model.predict(ANCHORS, verbose=0),
                             reference.encode(ANCHORS), atol=1e-5)
  keras.utils.set_random_seed(0)
  model.compile(optimizer=keras.optimizers.Adam(3e-3))
  before = model.evaluate((ANCHORS, POSITIVES), return_dict=True, verbose=0)
  model.fit((ANCHORS * 2, POSITIVES * 2), epochs=3, batch_size=4, verbose=0)
  logs = model.evaluate((ANCHORS, POSITIVES), return_dict=True, verbose=0)
  # Observed: a drop of ~400x; a factor 10 leaves room for other rounding,
  # and no room for a run that did not learn.
  assert logs["loss"] < before["loss"] / 10, (before, logs)
  vectors = model.predict(ANCHORS + POSITIVES, verbose=0)
  vectors /= np.linalg.norm(vectors, axis=-1, keepdims=True)
  scores = vectors[:4] @ vectors[4:].T  # cosine
  # A row whose best two scores (nearly) tie may go either way in the
  # model's graph (other rounding): it counts as right or wrong.
  top2 = np.sort(scores, -1)[:, -2:]
  decided = top2[:, 1] - top2[:, 0] > 1e-4
  right = np.argmax(scores, -1) == np.arange(4)
  assert (np.mean(right & decided) - 1e-6 <= logs["in_batch_accuracy"] <=
          np.mean(right | ~decided) + 1e-6), (logs, scores)
