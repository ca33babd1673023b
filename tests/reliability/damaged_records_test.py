"""run_pretraining.py on TFRecords emptied, cut short or random (issue 38
item 3): one `error:` line naming the file (and record), no traceback, no
checkpoint."""

import os

import pytest

from tests.reliability import fixtures

_DAMAGE = {
    "empty": (lambda data: b"", ["no records in any of the 1 input files",
                                 "damaged_empty.tfrecord"]),
    "truncated": (lambda data: data[:len(data) // 2],
                  ["damaged_truncated.tfrecord: record 3 is truncated or "
                   "corrupt"]),
    "random": (lambda data: bytes(range(256))[::5] * 9,
               ["damaged_random.tfrecord: record 0 is truncated or "
                "corrupt"]),
}


@pytest.mark.parametrize("how", sorted(_DAMAGE))
def test_damaged_records_are_one_clear_error(inputs, how):
  make, expected = _DAMAGE[how]
  with open(inputs["records"], "rb") as f:
    data = f.read()
  path = fixtures.write_text(
      os.path.join(inputs["dir"], "damaged_%s.tfrecord" % how), make(data),
      mode="wb")
  out = os.path.join(inputs["dir"], "records_" + how)
  result = fixtures.run_in_process("run_pretraining.py", fixtures.flag_args(
      input_file=path, bert_config_file=inputs["config"], output_dir=out,
      do_train="true", max_seq_length=fixtures.SEQ,
      max_predictions_per_seq=fixtures.MAX_PRED, train_batch_size=2,
      num_train_steps=4, save_checkpoints_steps=2, iterations_per_loop=2))
  line = fixtures.error_line(result)
  assert line.startswith("error: --input_file"), line
  for part in expected:
    assert part in line, (part, line)
  assert not os.path.exists(out) or not any(
      n.startswith("model.ckpt") for n in os.listdir(out))
