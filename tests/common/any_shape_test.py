"""`common.any_shape.any_shape_function`: one trace for any shapes."""

import numpy as np
import tensorflow as tf

from bert_tf2.common import any_shape


def test_one_trace_for_tensors_and_arrays_of_any_size():
  traces = []

  def total(inputs):
    traces.append(inputs["a"].shape.as_list())
    return tf.reduce_sum(inputs["a"], axis=-1) + inputs["b"][..., 0]

  fn = any_shape.any_shape_function(total)
  for rows, length in ((1, 3), (4, 9), (2, 2)):
    a = np.arange(rows * length, dtype=np.int32).reshape(rows, length)
    b = np.ones([rows, 5], np.int32)
    got = fn({"a": tf.constant(a), "b": b}).numpy()
    np.testing.assert_array_equal(got, a.sum(axis=-1) + 1)
  assert traces == [[None, None]]
  assert fn.tf_function.experimental_get_tracing_count() == 1
