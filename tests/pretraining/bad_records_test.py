"""A bad record deep in a file stops training with its file and index."""

import json

from absl import flags
import pytest

from bert_tf2.common import InputError
from bert_tf2.pretraining import flags as pretraining_flags
from bert_tf2.pretraining import run
from tests.pretraining import records

CONFIG = {"vocab_size": 1000, "hidden_size": 8, "num_hidden_layers": 1,
          "num_attention_heads": 2, "intermediate_size": 16,
          "max_position_embeddings": 32, "type_vocab_size": 2}


def _flags(tmp_path, mode):
  fv = flags.FlagValues()
  pretraining_flags.define_flags(fv)
  fv(["run_pretraining.py",
      "--bert_config_file=%s" % (tmp_path / "bert_config.json"),
      "--input_file=%s" % (tmp_path / "data.tfrecord"),
      "--output_dir=%s" % (tmp_path / "out"), mode, "--train_batch_size=4",
      "--eval_batch_size=4", "--num_train_steps=50", "--max_eval_steps=10",
      "--max_seq_length=16", "--max_predictions_per_seq=4"])
  return fv


@pytest.mark.parametrize("mode", ["--do_train", "--do_eval"])
def test_truncated_file_found_while_running(tmp_path, mode):
  (tmp_path / "bert_config.json").write_text(json.dumps(CONFIG))
  path = tmp_path / "data.tfrecord"
  records.write_records(path, 12, 16, 4)
  offsets = records.record_offsets(str(path))
  path.write_bytes(path.read_bytes()[:offsets[9] + 30])  # cut in record 9
  with pytest.raises(InputError) as e:
    run.run_pretraining(_flags(tmp_path, mode))
  msg = str(e.value)
  assert msg.startswith("--input_file: %s: record 9 is truncated or corrupt"
                        % path)
  assert msg.endswith("the file is damaged or was not completely written")
