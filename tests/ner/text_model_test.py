"""TokenTextModel: docs/keras.md's NER example runs on a tiny checkpoint
directory; fit/evaluate/predict on raw strings with word-level tags,
the CRF head; a compiled loss and "accuracy" see first pieces."""

import os
import re

import keras
import numpy as np
import pytest

from bert_tf2 import models
from tests.common import tiny_dir
from tokenization.errors import InputError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
TEXTS = ["Angela Merkel visited Paris.", "Bob met Ann in Paris.",
         "江泽民在北京。"]
TAGS = [["B-PER", "I-PER", "O", "B-LOC", "O"],
        ["B-PER", "O", "B-PER", "O", "B-LOC", "O"],
        ["B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-LOC", "O"]]


def _docs_example():
  with open(os.path.join(REPO, "docs", "keras.md"), encoding="utf-8") as f:
    text = f.read()
  section = text[text.index("## NER from raw strings"):]
  return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
  return tiny_dir.write(str(tmp_path_factory.mktemp("tiny")))


@pytest.mark.slow
def test_the_docs_example_runs(ckpt, tmp_path, monkeypatch):
  code = _docs_example()
  lines = [l for l in code.splitlines()
           if l.strip() and not l.startswith(("import ", "from "))]
  assert len(lines) <= 10
  code = code.replace('"multi_cased_L-12_H-768_A-12"', repr(ckpt))
  code = code.replace("epochs=3", "epochs=1")
  monkeypatch.chdir(tmp_path)
  keras.utils.set_random_seed(0)
  scope = {}
  exec(compile(code, "docs/keras.md", "exec"), scope)  # pylint: disable=exec-used
  tagged = scope["tagged"]
  words = scope["model"].preprocessor.words(["Angela Merkel visited Paris.",
                                             "江泽民在北京"])
  assert words == [["angela", "merkel", "visited", "paris", "."],
                   list("江泽民在北京")]
  assert [len(t) for t in tagged] == [5, 6]
  assert all(t in LABELS for row in tagged for t in row)
  assert os.path.exists(tmp_path / "ner.keras")


@pytest.mark.slow
def test_crf_fit_evaluate_predict_on_raw_strings(ckpt):
  keras.utils.set_random_seed(0)
  model = models.text_model(models.BertTokenClassifier, ckpt, labels=LABELS,
                            max_seq_length=16, crf=True)
  model.compile(optimizer=keras.optimizers.Adam(3e-2))
  history = model.fit(TEXTS * 4, TAGS * 4, epochs=4, batch_size=6,
                      verbose=0)
  assert history.history["loss"][-1] < history.history["loss"][0] / 3
  logs = model.evaluate(TEXTS, TAGS, return_dict=True, verbose=0)
  tagged = model.predict(TEXTS, verbose=0)
  correct = sum(p == t for ps, ts in zip(tagged, TAGS)
                for p, t in zip(ps, ts))
  assert logs["token_accuracy"] == pytest.approx(correct / 18)
  assert logs["token_accuracy"] > 0.8
  assert [len(t) for t in tagged] == [len(t) for t in TAGS]
  assert model.task.use_crf


@pytest.mark.slow
def test_user_loss_and_accuracy_see_first_pieces(ckpt):
  keras.utils.set_random_seed(0)
  model = models.text_model(models.BertTokenClassifier, ckpt, labels=LABELS,
                            max_seq_length=16)
  model.compile(optimizer=keras.optimizers.Adam(3e-2),
                loss=keras.losses.SparseCategoricalCrossentropy(
                    from_logits=True), metrics=["accuracy"])
  words = [t.split() for t in ["Bob met Ann", "Angela visited Paris"]]
  tags = [["B-PER", "O", "B-PER"], ["B-PER", "O", "B-LOC"]]
  model.fit(words * 3, tags * 3, epochs=1, batch_size=6, verbose=0)
  logs = model.evaluate(words, tags, return_dict=True, verbose=0)
  predicted = model.predict(words, verbose=0)
  want = np.mean([p == t for ps, ts in zip(predicted, tags)
                  for p, t in zip(ps, ts)])
  assert logs["accuracy"] == pytest.approx(want)
  with pytest.raises(InputError, match="sentence 1 has 2 tags for 3 words"):
    model.fit(words, [tags[0], tags[1][:2]], verbose=0)
