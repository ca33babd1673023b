"""MultipleChoicePreprocessor: the ids of features.convert_example on the
multilingual corpus (with and without questions, an empty choice);
text_model(BertMultipleChoice, dir) fits and predicts on raw strings."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tokenization
from bert_tf2 import models
from bert_tf2.multiple_choice import features
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor
from bert_tf2.multiple_choice.reader import MultipleChoiceExample
from tests.common import tiny_dir
from tests.tokenization.conftest import minilm_vocab_path
from tests.tokenization.corpus import build_corpus
from tokenization import tf_text


def test_features_equal_convert_example_on_the_multilingual_corpus():
  skip = set(tf_text.unicode_version_differences())
  lines = [l for l in build_corpus(max_bytes=12_000)
           if not any(ord(c) in skip for c in l)][:90]
  contexts, questions = lines[0::3], lines[1::3]
  questions = [q if i % 2 else "" for i, q in enumerate(questions)]
  choices = [[c[:30], c[30:60], ""] for c in lines[2::3]]
  n = min(len(contexts), len(questions), len(choices))
  contexts, questions, choices = contexts[:n], questions[:n], choices[:n]
  reference = tokenization.FullTokenizer(minilm_vocab_path(), True)
  layer = MultipleChoicePreprocessor(minilm_vocab_path(), max_seq_length=24)
  got = layer((tf.constant(contexts), tf.constant(questions),
               tf.constant(choices)))
  assert got["input_ids"].shape == (n, 3, 24)
  for i in range(n):
    want = features.convert_example(MultipleChoiceExample(
        str(i), contexts[i], questions[i] or None, choices[i], 0, "t"), 24,
        reference)
    for key in features.FEATURE_NAMES:
      assert got[key][i].numpy().tolist() == getattr(want, key), (key, i)


@pytest.mark.slow
def test_fit_and_predict_on_raw_strings(tmp_path):
  ckpt = tiny_dir.write(str(tmp_path))
  keras.utils.set_random_seed(0)
  model = models.text_model(models.BertMultipleChoice, ckpt,
                            max_seq_length=12)
  model.compile(optimizer=keras.optimizers.Adam(3e-2))
  contexts = ["the cat sat", "a dog ran", "bob met ann", "the cat ran"]
  choices = [["on the mat", "in paris"], ["in paris", "on the mat"],
             ["in paris", "on the mat"], ["on the mat", "in paris"]]
  labels = np.array([0, 1, 1, 0], np.int32)
  before = model.evaluate((contexts, choices), labels, return_dict=True,
                          verbose=0)
  model.fit((contexts * 2, choices * 2), np.tile(labels, 2), epochs=2,
            batch_size=4, verbose=0)
  logs = model.evaluate((contexts, choices), labels, return_dict=True,
                        verbose=0)
  # tiny_dir's checkpoint is the same on every run (seeded): the loss goes
  # from ln 2 to 0.56. (Unseeded draws gave drops of 0.02-0.13, a first
  # step at chance, issue 38.) 0.05 is far from both rounding and chance.
  assert logs["loss"] < before["loss"] - 0.05, (before, logs)
  logits = model.predict((contexts, choices), verbose=0)
  assert logits.shape == (4, 2)
  assert logs["accuracy"] == pytest.approx(
      np.mean(np.argmax(logits, -1) == labels))
