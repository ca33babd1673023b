"""modeling.literal_paths: checkpoints and SavedModels under paths holding
glob characters, a space and non-ASCII (issue 38 item 2)."""

import os

import numpy as np
import tensorflow as tf

import modeling
from modeling import literal_paths

ODD = "ru n[1]-é"


def test_checkpoint_with_glob_characters_in_directory_and_name(tmp_path):
  directory = tmp_path / ODD
  prefix = modeling.write_checkpoint(
      {"a": np.arange(3, dtype=np.float32)}, str(directory / "m[0]*.ckpt"))
  # Another file the patterns would also match is not taken.
  modeling.write_checkpoint({"b": np.zeros([1], np.float32)},
                            str(directory / "m0x.ckpt"))
  assert literal_paths.checkpoint_files(prefix) == [
      prefix + ".index", prefix + ".data-00000-of-00001"]
  reader = literal_paths.load_checkpoint(prefix)
  assert sorted(reader.get_variable_to_shape_map()) == ["a"]
  np.testing.assert_array_equal(reader.get_tensor("a"), [0, 1, 2])


def test_state_file_written_by_tensorflow_is_parsed(tmp_path):
  """text_format escapes non-ASCII as octal; the path is read back whole."""
  directory = str(tmp_path / ODD)
  manager = tf.train.CheckpointManager(
      tf.train.Checkpoint(v=tf.Variable(1.0)), directory, max_to_keep=2)
  for _ in range(3):
    manager.save()
  assert literal_paths.read_state(directory) == ("ckpt-3",
                                                 ["ckpt-2", "ckpt-3"])
  assert literal_paths.listed_checkpoint(directory) == os.path.join(
      directory, "ckpt-3")
  assert modeling.save_checkpoint({"a": np.ones([1], np.float32)},
                                  directory, 7) == os.path.join(
                                      directory, "model.ckpt-7")
  assert literal_paths.read_state(directory)[0] == "model.ckpt-7"


def test_saved_model_in_a_directory_with_glob_characters(tmp_path):
  module = tf.Module()
  module.v = tf.Variable([1.0, 2.0])
  module.f = tf.function(lambda x: x * module.v,
                         input_signature=[tf.TensorSpec([2])])
  path = str(tmp_path / ODD / "export[1]")
  tf.saved_model.save(module, path)
  loaded = tf.saved_model.load(literal_paths.saved_model_dir(path))
  np.testing.assert_array_equal(loaded.f(tf.ones([2])), [1.0, 2.0])

