"""Datasets for Keras `fit`/`evaluate` whose epoch-end numbers are right.

Keras 3 (TensorFlow backend) counts a batch that does not exist when a
tf.data.Dataset of unknown cardinality (any TFRecordDataset, `filter`...)
has a static batch dimension: the epoch's `loss` and metrics are
`n / (n + 1)` of the truth (per-batch logs are right). With a dynamic batch
dimension nothing is added.

`dynamic_batch(data)` erases a static batch dimension of such a dataset
(one identity op); the task models' and text models' `fit` and `evaluate`
apply it to `x` and to `validation_data`. A dataset of known or infinite
cardinality is returned as it is.

Example:
  >>> import tensorflow as tf
  >>> d = tf.data.Dataset.range(8).batch(4, drop_remainder=True)
  >>> d = d.filter(lambda x: True)              # unknown cardinality
  >>> d.element_spec.shape.as_list(), dynamic_batch(d).element_spec.shape.as_list()
  ([4], [None])
"""

import tensorflow as tf


def _erase_batch_dim(tensor):
  if not isinstance(tensor, tf.Tensor):  # Ragged, sparse: left as they are.
    return tensor
  shape = tensor.shape
  if shape.rank is None or shape.rank == 0 or shape[0] is None:
    return tensor
  return tf.compat.v1.placeholder_with_default(tensor, [None] + shape[1:])


def dynamic_batch(data):
  """`data` with its elements' first dimension unknown when its cardinality
  is unknown (see module docstring); anything else is returned unchanged."""
  if not isinstance(data, tf.data.Dataset):
    return data
  if int(data.cardinality()) != int(tf.data.UNKNOWN_CARDINALITY):
    return data
  shapes = [s.shape for s in tf.nest.flatten(data.element_spec)
            if isinstance(s, tf.TensorSpec)]
  if not any(s.rank and s[0] is not None for s in shapes):
    return data
  return data.map(tf.autograph.experimental.do_not_convert(
      lambda *e: tf.nest.map_structure(_erase_batch_dim,
                                       e if len(e) > 1 else e[0])))


def fit_arguments(x, kwargs):
  """(x, kwargs) with `dynamic_batch` applied to x and validation_data."""
  validation = kwargs.get("validation_data")
  if isinstance(validation, tf.data.Dataset):
    kwargs = dict(kwargs, validation_data=dynamic_batch(validation))
  return dynamic_batch(x), kwargs


def no_autotune_options():
  """tf.data options with autotuning off, for the runner's datasets and the
  text models' datasets of raw texts.

  Deleting an autotuned dataset's iterator waits for the autotuning
  thread's sleep (up to a minute); these pipelines make batches far faster
  than a step consumes them and have nothing to tune.
  """
  options = tf.data.Options()
  options.autotune.enabled = False
  return options
