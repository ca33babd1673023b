"""Synthetic position-embedding tables with known structure, for tests."""

import numpy as np


def sinusoidal_table(num_positions=64, hidden_size=32):
  """The Transformer's sinusoidal position encoding, [P, H] float64."""
  pos = np.arange(num_positions)[:, None]
  freq = 10000.0 ** (-2.0 * np.arange(hidden_size // 2)[None] / hidden_size)
  table = np.zeros((num_positions, hidden_size))
  table[:, 0::2] = np.sin(pos * freq)
  table[:, 1::2] = np.cos(pos * freq)
  return table


def random_table(num_positions=64, hidden_size=32, seed=0, stddev=0.02):
  """Untrained embeddings: i.i.d. N(0, stddev^2), [P, H] float64."""
  return np.random.RandomState(seed).normal(0.0, stddev,
                                            (num_positions, hidden_size))


def write_checkpoint(prefix, variables):
  """Writes {name: numpy array} as a TF checkpoint readable by
  tf.train.load_checkpoint (like an original bert_model.ckpt)."""
  import tensorflow as tf
  names = sorted(variables)
  tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names,
                    shape_and_slices=[""] * len(names),
                    tensors=[tf.constant(variables[n]) for n in names])
  return prefix
