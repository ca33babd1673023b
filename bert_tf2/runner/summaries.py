"""TensorBoard scalars of `runner.Estimator` (training and evaluation)."""

import os

import tensorflow as tf


_SCALAR_METADATA = tf.compat.v1.SummaryMetadata(
    plugin_data={"plugin_name": "scalars"}).SerializeToString()


class ScalarWriter(object):
  """Writes scalars under output_dir/<subdir> ("" for training, "eval").

  Args:
    output_dir: the run's output directory.
    enabled: False on workers that must not write (not the chief).
  """

  def __init__(self, output_dir, enabled=True):
    self._output_dir = output_dir
    self._enabled = enabled
    self._writers = {}

  def write(self, subdir, step, scalars):
    """Writes {name: float} at `step` and flushes."""
    if not self._enabled:
      return
    if subdir not in self._writers:
      self._writers[subdir] = tf.summary.create_file_writer(
          os.path.join(self._output_dir, subdir))
    writer = self._writers[subdir]
    with writer.as_default(step=step):
      for key, value in scalars.items():
        # tf.summary.write with the scalars plugin's metadata is what
        # tf.summary.scalar does, without needing the tensorboard package.
        tf.summary.write(key, tf.constant(value, tf.float32),
                         metadata=_SCALAR_METADATA)
    writer.flush()
