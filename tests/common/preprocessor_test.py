"""Raw strings in: BertPreprocessor ids equal FullTokenizer +
convert_single_example; TextModel fits, evaluates and predicts on text;
its .keras file carries the vocabulary and loads in a fresh process."""

import os
import subprocess

import numpy as np
import pytest
import keras
import tensorflow as tf

import modeling
import tokenization
from bert_tf2.classifier import features as features_lib
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.processors import InputExample
from bert_tf2.common import preprocessor as pre_lib
from bert_tf2.common.text_model import TextModel
from tests import warm_python
from tests.tokenization.conftest import minilm_vocab_path
from tests.tokenization.corpus import build_corpus
from tokenization import tf_text

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "film",
         "great", "bad", "##s", "is", "not", "."]
CONFIG = modeling.BertConfig(
    vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1,
    num_attention_heads=2, intermediate_size=24, max_position_embeddings=16)
TEXTS = ["the film is great", "a bad film", "great films .",
         "the film is bad", "not a great film", "a great film"]
LABELS = np.array([1, 0, 1, 0, 0, 1], np.int32)


@pytest.mark.parametrize("lower", [True, False])
def test_ids_equal_the_original_on_the_multilingual_corpus(lower):
  skip = set(tf_text.unicode_version_differences())
  lines = [l for l in build_corpus(max_bytes=30_000)
           if not any(ord(c) in skip for c in l)]
  pairs = list(zip(lines[0::2], lines[1::2]))[:150]
  reference = tokenization.FullTokenizer(minilm_vocab_path(),
                                         do_lower_case=lower)
  layer = pre_lib.BertPreprocessor(minilm_vocab_path(), do_lower_case=lower,
                                   max_seq_length=32)
  for with_b in (False, True):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs] if with_b else None
    got = layer((tf.constant(a), tf.constant(b)) if with_b else tf.constant(a))
    for i, (text_a, text_b) in enumerate(pairs):
      want = features_lib.convert_single_example(
          10, InputExample("g", text_a, text_b if with_b else None, "0"),
          ["0"], 32, reference)
      assert got["input_ids"][i].numpy().tolist() == want.input_ids, text_a
      assert got["input_mask"][i].numpy().tolist() == want.input_mask
      assert got["segment_ids"][i].numpy().tolist() == want.segment_ids


def _model(num_labels=2):
  keras.utils.set_random_seed(0)
  return TextModel(
      pre_lib.BertPreprocessor(VOCAB, max_seq_length=10),
      BertClassifier(CONFIG, num_labels))


@pytest.mark.slow
def test_fit_evaluate_predict_on_raw_strings():
  model = _model()
  model.compile(optimizer=keras.optimizers.Adam(1e-2))  # The original loss.
  history = model.fit(TEXTS, LABELS, epochs=4, batch_size=3, verbose=0)
  assert history.history["loss"][-1] < history.history["loss"][0]
  logs = model.evaluate(TEXTS, LABELS, return_dict=True, verbose=0)
  predicted = np.argmax(model.predict(TEXTS, verbose=0), axis=-1)
  assert logs["accuracy"] == pytest.approx(np.mean(predicted == LABELS))


@pytest.mark.slow
def test_pairs_and_regression_with_a_user_loss():
  model = _model(num_labels=1)
  model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse")
  scores = LABELS.astype(np.float32) * 5.0
  pairs = (TEXTS, TEXTS[::-1])
  history = model.fit(pairs, scores, epochs=3, batch_size=3, verbose=0)
  assert history.history["loss"][-1] < history.history["loss"][0]
  assert model.predict(pairs, verbose=0).shape == (6, 1)
  # The same as the task model on the preprocessed features.
  features = model.preprocessor((tf.constant(TEXTS), tf.constant(TEXTS[::-1])))
  np.testing.assert_allclose(model.predict(pairs, verbose=0),
                             model.task(features).numpy(), atol=1e-6)


@pytest.mark.slow
def test_keras_file_loads_in_a_fresh_process(tmp_path):
  model = _model()
  path = str(tmp_path / "text.keras")
  model.save(path)
  np.save(str(tmp_path / "want.npy"), model.predict(TEXTS, verbose=0))
  script = (
      "import sys, numpy as np, keras\n"
      "import bert_tf2.models\n"
      "m = keras.models.load_model(sys.argv[1])\n"
      "got = m.predict(%r, verbose=0)\n"
      "np.testing.assert_allclose(got, np.load(sys.argv[2]), atol=1e-6)\n"
      "print(type(m).__name__, len(m.preprocessor.vocabulary))\n" % TEXTS)
  env = dict(os.environ, PYTHONPATH=REPO)
  # A fresh program (tests/warm_python.py: forked from a process that
  # imported TensorFlow and Keras only, none of the project).
  out = subprocess.run([warm_python.command(), "-c", script, path,
                        str(tmp_path / "want.npy")], cwd=str(tmp_path),
                       env=env, capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stderr[-2000:]
  assert "TextModel %d" % len(VOCAB) in out.stdout
