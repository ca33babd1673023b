"""A tiny Task and input_fn for runner tests (runs in milliseconds on CPU)."""

import keras
import numpy as np
import tensorflow as tf

from bert_tf2 import runner

NUM_CLASSES = 3
DIM = 4
NUM_IDS = 16  # Rows of the id embedding (id % NUM_IDS: repeats in a batch).


class IdEmbedding(keras.layers.Layer):
  """x + table[id % NUM_IDS] via tf.gather: an IndexedSlices gradient with
  duplicate rows, as BERT's word embeddings, for the runner's clipping."""

  def build(self, input_shape):
    self.table = self.add_weight(shape=(NUM_IDS, DIM), name="table",
                                 initializer="random_normal")

  def call(self, inputs):
    x, ids = inputs
    return x + tf.gather(self.table, tf.math.floormod(ids, NUM_IDS))


class ToyTask(runner.Task):
  """Id embedding -> Dense -> LayerNorm -> Dense classifier, original-style
  names."""

  def __init__(self, hidden=8, nan_after=None, dropout=0.0,
               nan_gradient_at=None):
    self.hidden = hidden
    self.nan_after = nan_after  # Features with id >= this give a NaN loss.
    self.dropout = dropout
    # A batch holding this id gives a finite loss but NaN gradients (the
    # update makes the weights NaN, as a too-high learning rate does).
    self.nan_gradient_at = nan_gradient_at

  def build_model(self):
    keras.utils.set_random_seed(1234)
    x = keras.Input([DIM], name="x")
    ids = keras.Input([], dtype="int64", name="id")
    h = IdEmbedding(name="embedding")([x, ids])
    h = keras.layers.Dense(self.hidden, activation="tanh", name="dense")(h)
    h = keras.layers.LayerNormalization(epsilon=1e-12, name="ln")(h)
    h = keras.layers.Dropout(self.dropout)(h)
    logits = keras.layers.Dense(NUM_CLASSES, name="out", dtype="float32")(h)
    return keras.Model([x, ids], logits)

  def checkpoint_variables(self, model):
    dense, ln, out = (model.get_layer("dense"), model.get_layer("ln"),
                      model.get_layer("out"))
    return {"toy/embeddings": model.get_layer("embedding").table,
            "toy/dense/kernel": dense.kernel, "toy/dense/bias": dense.bias,
            "toy/LayerNorm/gamma": ln.gamma, "toy/LayerNorm/beta": ln.beta,
            "toy/output_weights": out.kernel, "toy/output_bias": out.bias}

  def compute_loss(self, model, features, training):
    logits = tf.cast(model([features["x"], features["id"]],
                           training=training), tf.float32)
    per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=features["y"], logits=logits)
    loss = tf.reduce_mean(per_example)
    if self.nan_after is not None:
      bad = tf.reduce_any(features["id"] >= self.nan_after)
      loss = tf.where(bad, tf.constant(np.nan, tf.float32), loss)
    if self.nan_gradient_at is not None:
      loss = _nan_gradient_if(
          tf.reduce_any(tf.equal(features["id"], self.nan_gradient_at)), loss)
    return loss, {"logits": logits, "per_example_loss": per_example}

  def create_metrics(self):
    return {"accuracy": keras.metrics.SparseCategoricalAccuracy(),
            "mean_loss": keras.metrics.Mean()}

  def update_metrics(self, metrics, features, outputs):
    metrics["accuracy"].update_state(features["y"], outputs["logits"])
    metrics["mean_loss"].update_state(outputs["per_example_loss"])

  def predict_outputs(self, model, features):
    logits = tf.cast(model([features["x"], features["id"]], training=False),
                     tf.float32)
    return {"id": features["id"], "probabilities": tf.nn.softmax(logits)}


def _nan_gradient_if(bad, loss):
  """`loss`, whose gradient is NaN where `bad` (a scalar bool) holds."""
  @tf.custom_gradient
  def identity(x):
    def grad(dy):
      return dy * tf.where(bad, tf.constant(np.nan, dy.dtype),
                           tf.ones([], dy.dtype))
    return tf.identity(x), grad
  return identity(loss)


def optimizer_fn():
  """The optimizer of every toy run (train_main and in-process tests)."""
  import optimization  # pylint: disable=g-import-not-at-top
  opt = optimization.create_optimizer(1e-2, 400, 10)
  # Small enough that clipping acts on most steps: replicas and micro-batches
  # must then agree on the global norm, including the embedding's
  # IndexedSlices terms.
  opt.clip_norm = 0.2
  return opt


def example(i):
  """Deterministic features of example i (a learnable rule)."""
  i = tf.cast(i, tf.int64)
  f = tf.cast(i, tf.float32)
  x = tf.stack([tf.sin(f * 0.7), tf.cos(f * 1.3), tf.sin(f * 0.11 + 1.0),
                tf.cos(f * 0.37)])
  y = tf.cast(tf.math.floormod(
      tf.cast(tf.floor((x[0] + x[1] + 2.0) * 1.0), tf.int64), NUM_CLASSES),
              tf.int32)
  return {"x": x, "y": y, "id": i}


def make_input_fn(num_examples=None, repeat=True, drop_remainder=True):
  """input_fn over examples 0..num_examples-1 (or infinite) in fixed order."""
  def input_fn(params):
    ds = tf.data.Dataset.range(num_examples or (1 << 40)).map(example)
    if repeat and num_examples:
      ds = ds.repeat()
    return ds.batch(params["batch_size"], drop_remainder=drop_remainder)
  return input_fn


def checkpoint_arrays(prefix):
  reader = tf.train.load_checkpoint(prefix)
  return {name: reader.get_tensor(name)
          for name in reader.get_variable_to_shape_map()}
