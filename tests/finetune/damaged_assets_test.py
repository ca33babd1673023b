"""A run's model files damaged or unsafe on disk: one clear line.

output_dir/{model.json,bert_config.json,vocab.txt} emptied, cut short or
overwritten with random bytes: `from_output_dir` (and `models.load`, which
reads the same record) raises an InputError naming the file and what to do
(a cut-short vocab.txt used to load and tokenize wrongly without a word).
An earlier version's predictor/predictor.json layout still loads, and its
damaged files are named the same way. model.json naming a file outside its
directory, or a FIFO, is refused in one line before any file is opened
(issue 46 item 3).
"""

import hashlib
import json
import os
import threading

import numpy as np
import pytest

import modeling
from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.finetune import assets
from tests.reliability import fixtures

_FILES = ("model.json", "bert_config.json", "vocab.txt")


def _record(tmp_path):
  vocab, config = fixtures.tiny_model_files(tmp_path, ["a", "b", "c"])
  out = str(tmp_path / "out")
  artifact.write(out, "classifier", config, vocab,
                 preprocessor=dict(do_lower_case=True, max_seq_length=8),
                 model=dict(num_labels=2), outputs=dict(labels=["0", "1"]))
  return out


def _legacy(tmp_path):
  """An earlier version's output_dir/predictor/ (as it wrote them)."""
  vocab, config = fixtures.tiny_model_files(tmp_path, ["a", "b", "c"])
  directory = tmp_path / "old" / "predictor"
  directory.mkdir(parents=True)
  digests = {}
  for source, name in ((config, "bert_config.json"), (vocab, "vocab.txt")):
    data = open(source, "rb").read()
    (directory / name).write_bytes(data)
    digests[name] = hashlib.sha256(data).hexdigest()
  (directory / "predictor.json").write_text(json.dumps(dict(
      kind="classifier", do_lower_case=True, max_seq_length=8,
      label_list=["0", "1"], sha256=digests)))
  return str(tmp_path / "old")


@pytest.mark.parametrize("how", fixtures.DAMAGE)
@pytest.mark.parametrize("name", _FILES)
def test_damaged_model_file_is_one_clear_error(tmp_path, name, how):
  out = _record(tmp_path)
  path = os.path.join(out, name)
  fixtures.damage_file(path, how)
  with pytest.raises(InputError) as e:
    ClassifierPredictor.from_output_dir(out, checkpoint="unused")
  message = str(e.value)
  assert "\n" not in message
  assert path in message and "damaged" in message, message
  assert "rerun the training script" in message, message


@pytest.mark.parametrize("name", ("predictor.json", "vocab.txt"))
def test_damaged_legacy_file_is_one_clear_error(tmp_path, name):
  out = _legacy(tmp_path)
  path = os.path.join(out, "predictor", name)
  fixtures.damage_file(path, fixtures.DAMAGE[0])
  with pytest.raises(InputError) as e:
    ClassifierPredictor.from_output_dir(out, checkpoint="unused")
  assert path in str(e.value) and "damaged" in str(e.value), str(e.value)


def test_intact_record_and_legacy_layout_load(tmp_path):
  out = _record(tmp_path)
  info = assets.load_assets(out, "classifier")
  assert info["label_list"] == ["0", "1"]
  assert info["vocab_file"] == os.path.join(out, "vocab.txt")
  assert "sha256" not in info
  old = assets.load_assets(_legacy(tmp_path), "classifier")
  assert old["label_list"] == ["0", "1"] and old["max_seq_length"] == 8
  assert old["vocab_file"].endswith(os.path.join("predictor", "vocab.txt"))


def _rewrite(out, **changes):
  path = os.path.join(out, artifact.FILE)
  with open(path) as f:
    record = json.load(f)
  record.update(changes)
  with open(path, "w") as f:
    json.dump(record, f)


@pytest.mark.parametrize("field,name", [
    ("vocabulary", "../vocab.txt"), ("vocabulary", "/etc/passwd"),
    ("config", "sub/bert_config.json"), ("config", ".."),
    ("checkpoint", "../model.ckpt-1"), ("checkpoint", "best/../../x"),
    ("vocabulary", 7)])
def test_a_name_outside_the_directory_is_refused_before_opening(
    tmp_path, field, name):
  out = _record(tmp_path)
  os.remove(os.path.join(out, "vocab.txt"))  # Opening anything would fail.
  _rewrite(out, **{field: name})
  with pytest.raises(InputError) as e:
    artifact.read(out)
  message = str(e.value)
  assert "\n" not in message
  assert "expected a plain file name inside" in message, message
  assert repr(name) in message, message


def _unblock(fifo):
  """Opens `fifo` for writing and closes it: a reader blocked in open()
  then reads end-of-file, so a regression fails instead of hanging."""
  try:
    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
  except OSError:  # No reader waiting: nothing blocked.
    pass


@pytest.mark.parametrize("name", ["vocab.txt", artifact.FILE])
def test_a_fifo_is_refused_without_opening_it(tmp_path, name):
  out = _record(tmp_path)
  fifo = os.path.join(out, name)
  os.remove(fifo)
  os.mkfifo(fifo)  # Opening it for reading would block until a writer.
  guard = threading.Timer(10.0, _unblock, [fifo])
  guard.start()
  try:
    with pytest.raises(InputError, match="not a regular file"):
      artifact.read(out)
  finally:
    guard.cancel()


def test_the_best_checkpoint_is_named_under_best(tmp_path):
  out = _record(tmp_path)
  best = os.path.join(out, "best")
  modeling.write_checkpoint({"global_step": np.int64(3)},
                            os.path.join(best, "model.ckpt-3"))
  artifact.set_checkpoint(out, os.path.join(best, "model.ckpt-3"))
  assert artifact.read(out).checkpoint == os.path.join(best, "model.ckpt-3")
  record = json.load(open(os.path.join(out, artifact.FILE)))
  assert sorted(n for n in record["sha256"] if n.startswith("best/")) == [
      "best/model.ckpt-3.data-00000-of-00001", "best/model.ckpt-3.index"]
  with pytest.raises(ValueError, match="not in"):
    artifact.set_checkpoint(out, str(tmp_path / "elsewhere" / "model.ckpt-1"))
