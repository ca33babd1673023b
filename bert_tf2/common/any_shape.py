"""`any_shape_function`: a graph function traced once for inputs of any size.

Tracing first for the inputs' ranks with every dimension unknown makes
every later call (any batch size, any sequence length) match that one
trace, where `reduce_retracing` alone retraces twice first.

Example:
  >>> import tensorflow as tf
  >>> double = any_shape_function(lambda d: {"y": d["x"] * 2})
  >>> double({"x": tf.ones([2, 3])})["y"].shape.as_list()
  [2, 3]
  >>> _ = double({"x": tf.ones([5, 7])})
  >>> double.tf_function.experimental_get_tracing_count()
  1
"""

import tensorflow as tf


def any_shape_function(fn):
  """fn(inputs: dict of Tensors or arrays) as one function for any shapes.

  Args:
    fn: a function of a dict of Tensors, traceable as plain graph code.

  Returns:
    call(inputs) -> fn's outputs; call.tf_function is the tf.function.
  """
  function = tf.function(fn, autograph=False, reduce_retracing=True)
  traced = set()  # (key, rank, dtype) signatures traced with unknown sizes.

  def call(inputs):
    signature = tuple(sorted((k, len(v.shape), tf.as_dtype(v.dtype).name)
                             for k, v in inputs.items()))
    if signature not in traced:
      function.get_concrete_function({
          k: tf.TensorSpec([None] * len(v.shape), tf.as_dtype(v.dtype))
          for k, v in inputs.items()})
      traced.add(signature)
    return function(inputs)
  call.tf_function = function
  return call
