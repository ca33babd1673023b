"""Runs a BERT checkpoint over InputFeatures and returns chosen layers.

The model is `modeling.BertModel` in inference mode, loaded from an
original-format checkpoint, run batched inside one `tf.function`. Layer
indexes are Python-style over the encoder layers: -1 is the last layer.

Example:
  >>> extractor = FeatureExtractor(config, "bert_model.ckpt", [-1, -2])  # doctest: +SKIP
  >>> for feature, layers in extractor.run(features, batch_size=32):  # doctest: +SKIP
  ...   layers[-1].shape   # float32 [length >= len(feature.tokens), hidden]
"""

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.runner import precision as precision_lib
import modeling


def parse_layers(layers, num_hidden_layers, flag="layers"):
  """Parses a --layers value like "-1,-2,-3,-4" into a list of ints.

  Raises:
    InputError: not a comma-separated list of integers, or an index outside
      [-num_hidden_layers, num_hidden_layers - 1].
  """
  try:
    indexes = [int(x) for x in str(layers).split(",")]
  except ValueError:
    raise InputError("--%s=%s: expected comma-separated layer indexes such "
                     "as -1,-2,-3,-4" % (flag, layers))
  for index in indexes:
    if not -num_hidden_layers <= index < num_hidden_layers:
      raise InputError(
          "--%s=%s: layer %d does not exist; the model has %d layers (use "
          "%d..%d)" % (flag, layers, index, num_hidden_layers,
                       -num_hidden_layers, num_hidden_layers - 1))
  return indexes


class FeatureExtractor(object):
  """A BERT encoder restored from a checkpoint, returning chosen layers.

  extract_features.py's engine, beside the raw-text `FeatureEncoder`
  because its token ids are made in Python: its batches can be split over
  a TPU strategy's replicas, where tensorflow_text ops cannot run.

  Args:
    bert_config: modeling.BertConfig.
    init_checkpoint: checkpoint prefix / file / directory.
    layer_indexes: list of int encoder layer indexes.
    use_one_hot_embeddings: bool, one-hot word embedding lookup (TPU style).
    strategy: optional tf.distribute.Strategy; the model is built in its
      scope and batches are split across its replicas.
    precision: "float32" (the original's) or "bfloat16" (Keras
      mixed_bfloat16; the layers' values are returned as float32).
  """

  def __init__(self, bert_config, init_checkpoint, layer_indexes,
               use_one_hot_embeddings=False, strategy=None,
               precision="float32"):
    self.layer_indexes = list(layer_indexes)
    self.strategy = strategy or tf.distribute.get_strategy()
    with self.strategy.scope(), precision_lib.policy_scope(precision):
      self.model = modeling.BertModel(
          bert_config, use_one_hot_embeddings=use_one_hot_embeddings)
    report = modeling.init_from_checkpoint(self.model, init_checkpoint)
    if report.not_loaded:
      logging.warning("Not in the checkpoint (left at random init): %s",
                      ", ".join(report.not_loaded))
    self._step = tf.function(self._forward, reduce_retracing=True,
                             autograph=False)

  def _forward(self, input_ids, input_mask, input_type_ids):
    out = self.model({"input_ids": input_ids, "input_mask": input_mask,
                      "token_type_ids": input_type_ids}, training=False)
    layers = out["encoder_outputs"]
    return [tf.cast(layers[i], tf.float32) for i in self.layer_indexes]

  def _run_batch(self, arrays):
    if self.strategy.num_replicas_in_sync == 1:
      return [t.numpy() for t in self._step(*arrays)]
    dataset = tf.data.Dataset.from_tensor_slices(tuple(arrays)).batch(
        len(arrays[0]))
    batch = next(iter(self.strategy.experimental_distribute_dataset(dataset)))
    outputs = self.strategy.run(self._step, args=batch)
    return [np.concatenate([t.numpy() for t in
                            self.strategy.experimental_local_results(o)])
            for o in outputs]

  def run(self, features, batch_size, trim_padding=True):
    """Yields (feature, {layer_index: float32 array [length, hidden]}).

    Args:
      features: list of feature_extraction.examples.InputFeatures.
      batch_size: int, examples per model call.
      trim_padding: run each batch at its longest sequence rounded up to a
        bucket (`common.padding`); `length` is then that bucket, else
        seq_length (the last partial batch is zero-padded).
    """
    for begin in range(0, len(features), batch_size):
      chunk = features[begin:begin + batch_size]
      pad = batch_size - len(chunk)
      seq_length = len(chunk[0].input_ids)
      length = seq_length
      if trim_padding:
        longest = max(int(np.flatnonzero(f.input_mask)[-1]) + 1
                      if any(f.input_mask) else 0 for f in chunk)
        length = padding.round_up_length(
            longest, padding.bucket_lengths(seq_length, fine=True))
      arrays = []
      for name in ("input_ids", "input_mask", "input_type_ids"):
        rows = [list(getattr(f, name))[:length] for f in chunk]
        rows += [[0] * length] * pad
        arrays.append(tf.constant(rows, dtype=tf.int32))
      outputs = self._run_batch(arrays)
      for row, feature in enumerate(chunk):
        yield feature, {index: output[row] for index, output in
                        zip(self.layer_indexes, outputs)}
