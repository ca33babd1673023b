"""A SavedModel exported into a directory named with glob characters
("run[1]/export", accepted by every script) loads with the helper
docs/prediction.md names (issue 46: `tf.saved_model.load` raised a
TensorFlow traceback there, since it globs the variables path)."""

import numpy as np
import tensorflow as tf

from bert_tf2.common import saved_model


def _module():
  module = tf.Module()
  module.weights = tf.Variable([1.0, 2.0, 3.0])
  module.scale = tf.function(lambda x: x * module.weights,
                             input_signature=[tf.TensorSpec([3], tf.float32)])
  return module


def test_export_in_a_glob_named_directory_loads(tmp_path):
  export = str(tmp_path / "run[1]" / "export")
  module = _module()
  saved_model.save_atomically(module, export,
                                {"serving_default": module.scale})
  loaded = saved_model.load_saved_model(export)
  np.testing.assert_array_equal(loaded.weights.numpy(), [1.0, 2.0, 3.0])
  served = loaded.signatures["serving_default"]
  out = served(x=tf.constant([2.0, 2.0, 2.0]))
  np.testing.assert_array_equal(list(out.values())[0].numpy(),
                                [2.0, 4.0, 6.0])
