"""An all-NaN --init_checkpoint through the scripts (issue 38 item 1): it
used to evaluate to `eval_loss = nan` and export a SavedModel answering NaN,
exit 0; now one `error:` line and no export."""

import os

import numpy as np
import tensorflow as tf

import modeling
from tests.reliability import fixtures


def _nan_copy(prefix, target):
  reader = tf.train.load_checkpoint(prefix)
  values = {name: reader.get_tensor(name)
            for name in reader.get_variable_to_shape_map()}
  values = {name: np.full_like(v, np.nan) for name, v in values.items()}
  return modeling.write_checkpoint(values, target)


def test_nan_init_checkpoint_is_not_evaluated_nor_exported(inputs, tmp_path):
  init = _nan_copy(inputs["ckpt"], str(tmp_path / "nan" / "bert_model.ckpt"))
  export = str(tmp_path / "export")
  result = fixtures.run_in_process("run_classifier.py", fixtures.flag_args(
      task_name="cola", do_train="false", do_eval="true",
      data_dir=inputs["glue"], vocab_file=inputs["vocab"],
      bert_config_file=inputs["config"], init_checkpoint=init,
      output_dir=str(tmp_path / "out"), export_dir=export,
      max_seq_length=16))
  line = fixtures.error_line(result)
  assert line.startswith("error: --init_checkpoint=%s: variable " % init)
  assert "holds NaN or Inf" in line, line
  assert "eval_loss" not in result.stdout
  assert not os.path.exists(export)
