"""A crafted `.keras` file whose preprocessor config names a path as its
vocabulary (issue 46): the load is refused in one line before any file is
opened, in Keras' safe mode too: a regular file outside the archive, a FIFO
(which would block the open for good) and /dev/zero (which would be read
until memory runs out). A layer built in Python still takes a vocab path."""

import json
import os
import threading
import zipfile

import keras
import pytest

from bert_tf2 import models
from bert_tf2.common import preprocessor as pre_lib
from tests.common import tiny_dir
from tokenization.errors import InputError


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
  """A saved TextModel: a tiny classifier on raw strings."""
  path = str(tmp_path_factory.mktemp("keras") / "model.keras")
  pre = models.BertPreprocessor(tiny_dir.VOCAB, max_seq_length=8)
  models.TextModel(pre, models.BertClassifier(tiny_dir.config(), 2)).save(
      path)
  return path


def _crafted(saved, out, vocabulary):
  """A copy of `saved` whose preprocessor's vocabulary is `vocabulary`."""
  with zipfile.ZipFile(saved) as src, zipfile.ZipFile(out, "w") as dst:
    for item in src.infolist():
      data = src.read(item.filename)
      if item.filename == "config.json":
        config = json.loads(data)
        config["config"]["preprocessor"]["config"]["vocabulary"] = vocabulary
        data = json.dumps(config).encode()
      dst.writestr(item, data)
  return out


def _fifo_writer(fifo):
  """A thread that feeds a valid vocabulary to whoever opens `fifo`: a
  load that opened it would succeed (the test fails) rather than hang."""
  def write():
    try:
      with open(fifo, "w", encoding="utf-8") as f:
        f.write("\n".join(tiny_dir.VOCAB) + "\n")
    except BrokenPipeError:
      pass
  thread = threading.Thread(target=write, daemon=True)
  thread.start()
  return thread


@pytest.mark.parametrize("kind", ["regular_file", "fifo", "dev_zero"])
@pytest.mark.parametrize("safe_mode", [True, False])
def test_a_path_as_saved_vocabulary_is_refused_unopened(saved, tmp_path,
                                                        kind, safe_mode):
  writer = None
  if kind == "regular_file":
    target = str(tmp_path / "secret.txt")
    with open(target, "w", encoding="utf-8") as f:
      f.write("\n".join(tiny_dir.VOCAB) + "\n")  # A usable vocabulary.
  elif kind == "fifo":
    target = str(tmp_path / "fifo")
    os.mkfifo(target)
    writer = _fifo_writer(target)
  else:
    target = "/dev/zero"
    if not os.path.exists(target):
      pytest.fail("/dev/zero missing")
  path = _crafted(saved, str(tmp_path / "crafted.keras"), target)
  try:
    with pytest.raises(InputError) as raised:
      keras.saving.load_model(path, safe_mode=safe_mode)
  finally:
    if writer is not None and writer.is_alive():
      # Nothing opened the FIFO: hold its read end open until the writer
      # has written (into the pipe's buffer) and finished.
      reader = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
      try:
        writer.join(10)
      finally:
        os.close(reader)
      assert not writer.is_alive()
  message = str(raised.value)
  assert "\n" not in message
  assert "BertPreprocessor config: vocabulary is the str %r" % target in (
      message)


@pytest.mark.parametrize("vocabulary", [{"a": 0}, 3, ["[PAD]", 4]])
def test_other_non_lists_are_refused(saved, tmp_path, vocabulary):
  path = _crafted(saved, str(tmp_path / "crafted.keras"), vocabulary)
  with pytest.raises(InputError, match="not a list of tokens"):
    keras.saving.load_model(path)


def test_inline_vocabulary_loads_and_a_path_in_python_still_works(
    saved, tmp_path):
  model = keras.saving.load_model(saved)
  assert model.preprocessor.vocabulary == tiny_dir.VOCAB
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(tiny_dir.VOCAB) + "\n", encoding="utf-8")
  for cls in (models.BertPreprocessor, models.NerPreprocessor,
              models.MultipleChoicePreprocessor,
              models.SquadPreprocessor):
    assert cls(str(vocab)).vocabulary == tiny_dir.VOCAB
  layer = pre_lib.BertPreprocessor.from_config(
      pre_lib.BertPreprocessor(str(vocab)).get_config())
  assert layer.vocabulary == tiny_dir.VOCAB
