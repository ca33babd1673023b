"""Every TextModel's .keras file (and an int8-quantized one) loads in a
fresh process after `import bert_tf2.models` alone, with no
custom_objects, and predicts as before saving (one subprocess)."""

import json
import os
import subprocess

import keras
import numpy as np
import pytest

from bert_tf2 import models
from tests import warm_python
from tests.common import tiny_dir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VOCAB = tiny_dir.VOCAB
TEXTS = ["the cat sat on the mat .", "bob met ann in paris", "江泽民在北京。"]
MC_X = (TEXTS, [["a dog", "the mat"], ["in paris", "a cat"],
                ["北京", "the dog"]])
LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def _models():
  config = tiny_dir.config()
  pre = lambda cls=models.BertPreprocessor, **kw: cls(
      VOCAB, max_seq_length=16, **kw)
  classifier = models.TextModel(pre(), models.BertClassifier(config, 3))
  quantized = models.TextModel(pre(), models.BertClassifier(config, 2))
  quantized.quantize("int8")
  return {
      "classifier": (classifier, TEXTS),
      "int8": (quantized, TEXTS),
      "int8_task": (models.BertClassifier(config, 2), None),
      "ner_crf": (models.TokenTextModel(
          pre(models.NerPreprocessor, labels=LABELS),
          models.BertTokenClassifier(config, len(LABELS), crf=True)), TEXTS),
      "multiple_choice": (models.TextModel(
          pre(models.MultipleChoicePreprocessor),
          models.BertMultipleChoice(config)), MC_X),
      "embedding": (models.SentenceTextModel(
          pre(), models.SentenceEncoder(config, "mean", True)), TEXTS),
  }


def _features():
  ids = np.array([[2, 5, 6, 7, 3, 0]], np.int32)
  return {"input_ids": ids, "input_mask": (ids > 0).astype(np.int32),
          "segment_ids": np.zeros_like(ids)}


@pytest.mark.slow
def test_every_text_model_loads_in_a_fresh_process(tmp_path):
  keras.utils.set_random_seed(0)
  want = {}
  for name, (model, x) in _models().items():
    if x is None:  # A bare task model, quantized.
      model.quantize("int8")
      out = model(_features())
    else:
      out = model.predict(x, verbose=0)
    want[name] = out if isinstance(out, list) else np.asarray(out).tolist()
    model.save(str(tmp_path / (name + ".keras")))
  with open(tmp_path / "want.json", "w", encoding="utf-8") as f:
    json.dump({"want": want, "x": {"texts": TEXTS, "mc": MC_X},
               "features": {k: v.tolist() for k, v in _features().items()}},
              f)
  script = r"""
import json, sys
import numpy as np, keras
import bert_tf2.models
data = json.load(open("want.json", encoding="utf-8"))
xs = {"multiple_choice": tuple(data["x"]["mc"])}
for name, want in data["want"].items():
  model = keras.saving.load_model(name + ".keras")
  if name == "int8_task":
    got = model({k: np.array(v, np.int32) for k, v in
                 data["features"].items()})
    assert model.bert.pooler.kernel.dtype == "int8", name
  else:
    got = model.predict(xs.get(name, data["x"]["texts"]), verbose=0)
  if isinstance(got, list):
    assert got == want, (name, got, want)
  else:
    np.testing.assert_allclose(np.asarray(got), np.array(want), atol=1e-5,
                               err_msg=name)
  print("loaded", name, type(model).__name__)
"""
  env = dict(os.environ, PYTHONPATH=REPO)
  # A fresh program (tests/warm_python.py: forked from a process that
  # imported TensorFlow and Keras only, none of the project).
  out = subprocess.run([warm_python.command(), "-c", script],
                       cwd=str(tmp_path),
                       env=env, capture_output=True, text=True, timeout=600)
  assert out.returncode == 0, out.stderr[-3000:]
  for name in want:
    assert "loaded %s" % name in out.stdout
  assert "loaded ner_crf TokenTextModel" in out.stdout
