"""A predictor's files damaged on disk (issue 38 item 3): one clear line.

output_dir/predictor/{predictor.json,bert_config.json,vocab.txt} emptied,
cut short or overwritten with random bytes: `from_output_dir` raises an
InputError naming the file and what to do (predictor.json used to be a
JSONDecodeError traceback; a cut-short vocab.txt loaded and tokenized
wrongly without a word).
"""

import os

import pytest

from bert_tf2.common import InputError
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.finetune import assets
from tests.reliability import fixtures

_FILES = ("predictor.json", "bert_config.json", "vocab.txt")


@pytest.mark.parametrize("how", fixtures.DAMAGE)
@pytest.mark.parametrize("name", _FILES)
def test_damaged_predictor_file_is_one_clear_error(tmp_path, name, how):
  vocab, config = fixtures.tiny_model_files(tmp_path, ["a", "b", "c"])
  out = tmp_path / "out"
  assets.save_assets(str(out), "classifier", config, vocab,
                     do_lower_case=True, max_seq_length=8,
                     label_list=["0", "1"])
  path = str(out / "predictor" / name)
  fixtures.damage_file(path, how)
  with pytest.raises(InputError) as e:
    ClassifierPredictor.from_output_dir(str(out), checkpoint="unused")
  message = str(e.value)
  assert "\n" not in message
  assert path in message and "damaged" in message, message
  assert "rerun the training script" in message, message


def test_intact_assets_load(tmp_path):
  vocab, config = fixtures.tiny_model_files(tmp_path, ["a", "b", "c"])
  out = str(tmp_path / "out")
  assets.save_assets(out, "classifier", config, vocab, max_seq_length=8,
                     label_list=["0", "1"])
  info = assets.load_assets(out, "classifier")
  assert info["label_list"] == ["0", "1"]
  assert info["vocab_file"] == os.path.join(out, "predictor", "vocab.txt")
  assert "sha256" not in info
