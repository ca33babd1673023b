"""The pair reader's bad inputs, and one record layout for every split."""

import json

import pytest

from bert_tf2.common import InputError
from bert_tf2.embedding import flags as embedding_flags
from bert_tf2.embedding import pairs
from bert_tf2.embedding.job import EmbeddingJob
from tests.classifier import tiny_task


def _write(path, objects):
  path.write_text("".join(json.dumps(o) + "\n" for o in objects))
  return str(path)


@pytest.mark.parametrize("obj, message", [
    ({"anchor": "a"}, 'no "positive" text'),
    ({"anchor": " ", "positive": "b"}, 'no "anchor" text'),
    ({"anchor": "a", "positive": "b", "negative": ""},
     '"negative" is empty'),
])
def test_bad_lines_name_file_and_line(tmp_path, obj, message):
  path = _write(tmp_path / "p.jsonl", [{"anchor": "a", "positive": "b"},
                                       obj])
  with pytest.raises(InputError, match="p.jsonl: line 2: " + message):
    pairs.read_pairs(path)


def test_negatives_in_some_splits_only_are_refused(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  _write(data / "train.jsonl", [{"anchor": "w1", "positive": "w2",
                                 "negative": "w3"}] * 2)
  _write(data / "dev.jsonl", [{"anchor": "w1", "positive": "w2"}])
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(tiny_task.VOCAB) + "\n")
  config = tmp_path / "bert_config.json"
  config.write_text(json.dumps(tiny_task.CONFIG))
  settings = embedding_flags.default_settings(
      data_dir=str(data), vocab_file=str(vocab), bert_config_file=str(config),
      output_dir=str(tmp_path / "out"), do_train=True, do_eval=True,
      max_seq_length=16, train_batch_size=2)
  with pytest.raises(InputError, match="hard negatives in some files and "
                     "not in others .*eval: no, train: yes"):
    EmbeddingJob(settings).prepare()
  assert not (tmp_path / "out").exists()
