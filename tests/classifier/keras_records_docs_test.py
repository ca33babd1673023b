"""docs/keras.md's "Fine-tune from an original checkpoint's records" example
runs as written: a tiny checkpoint directory and run_classifier-format
records named as in the example; it trains `epochs` epochs of
`steps_per_epoch` steps (the training records repeat forever), keeps the
best checkpoint and predicts the dev records."""

import os
import re

import keras
import numpy as np

from bert_tf2.classifier import features as features_lib
from bert_tf2.classifier.processors import InputExample
from tests.common import tiny_dir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CHECKPOINT = "uncased_L-12_H-768_A-12"


def _example():
  with open(os.path.join(REPO, "docs", "keras.md"), encoding="utf-8") as f:
    text = f.read()
  section = text.split("## Fine-tune from an original checkpoint's records",
                       1)[1]
  return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def _write_records(path, count, seed):
  import tokenization  # pylint: disable=g-import-not-at-top
  tokenizer = tokenization.FullTokenizer(
      os.path.join(CHECKPOINT, "vocab.txt"), do_lower_case=True)
  rng = np.random.RandomState(seed)
  words = tiny_dir.VOCAB[5:24]
  examples = [InputExample("%d" % i, " ".join(rng.choice(words, 6)),
                           label=str(i % 2)) for i in range(count)]
  features_lib.file_based_convert_examples_to_features(
      examples, ["0", "1"], 128, tokenizer, path)


def test_docs_records_example(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  keras.utils.set_random_seed(0)
  os.makedirs(CHECKPOINT)
  tiny_dir.write(CHECKPOINT)
  os.makedirs("out")
  _write_records("out/train.tf_record", 70, 0)  # 2 steps of 32 an epoch.
  _write_records("out/eval.tf_record", 10, 1)
  scope = {}
  exec(compile(_example(), "docs/keras.md", "exec"), scope)  # pylint: disable=exec-used
  assert scope["steps_per_epoch"] == 2
  model = scope["model"]
  history = model.history.history
  assert 2 <= len(history["loss"]) <= 3  # EarlyStopping may stop after 2.
  assert set(history) >= {"loss", "accuracy", "val_loss", "val_accuracy"}
  assert int(model.optimizer.iterations.numpy()) == 2 * len(history["loss"])
  assert os.path.exists("best.keras") and os.path.isdir("logs")
  assert scope["logits"].shape == (10, 2)
