"""Streaming evaluation metrics of the classifier beyond Keras' own.

`PearsonCorrelation` is STS-B's eval_pearson (regression), accumulated over
every evaluation batch as the original's `tf.metrics.pearson_correlation`.

Example:
  >>> m = PearsonCorrelation()
  >>> m.update_state([1.0, 2.0, 3.0], [2.0, 4.0, 7.0])
  >>> round(float(m.result()), 4)
  0.9934
"""

import keras
import tensorflow as tf


class PearsonCorrelation(keras.metrics.Metric):
  """Streaming (weighted) Pearson correlation of predictions and labels."""

  def __init__(self, name="pearson", **kwargs):
    super().__init__(name=name, **kwargs)
    # float64 sums: sum(x^2) - sum(x)^2 / n cancels badly in float32 when
    # the predictions' spread is small next to their mean.
    self._sums = self.add_variable(shape=(6,), initializer="zeros",
                                   dtype="float64", name="sums")

  def update_state(self, y_true, y_pred, sample_weight=None):
    x = tf.cast(tf.reshape(y_pred, [-1]), tf.float64)
    y = tf.cast(tf.reshape(y_true, [-1]), tf.float64)
    w = (tf.ones_like(x) if sample_weight is None else
         tf.cast(tf.reshape(sample_weight, [-1]), tf.float64))
    update = tf.stack([tf.reduce_sum(w), tf.reduce_sum(w * x),
                       tf.reduce_sum(w * y), tf.reduce_sum(w * x * x),
                       tf.reduce_sum(w * y * y), tf.reduce_sum(w * x * y)])
    self._sums.assign_add(tf.cast(update, self._sums.dtype))

  def result(self):
    s = tf.cast(self._sums, tf.float64)
    n, sx, sy, sxx, syy, sxy = [s[i] for i in range(6)]
    cov = sxy - sx * sy / n
    var = tf.sqrt(tf.maximum(sxx - sx * sx / n, 0.0) *
                  tf.maximum(syy - sy * sy / n, 0.0))
    return tf.cast(tf.math.divide_no_nan(cov, var), tf.float32)
