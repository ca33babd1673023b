"""Every worker's prediction rows on every worker (multi-worker predict).

Each replica's rows are placed in its own slot of a [replicas, max_rows,
...] block and summed across replicas with `all_reduce` (exact: x + 0 = x),
which every strategy supports for batches of different sizes, where
`strategy.gather` failed with one device per worker.
"""

import numpy as np
import tensorflow as tf

from bert_tf2.runner import inputs


def gather_rows(outputs, max_rows):
  """Every replica's rows of `outputs`, on every replica (replica context).

  Args:
    outputs: dict of Tensors with a leading batch dimension <= max_rows.
    max_rows: int, the per-replica batch size.

  Returns:
    {key: Tensor [replicas, max_rows, ...]}, rows zero-padded per replica,
    plus "__rows__": int32 [replicas], the real row count of each replica.
  """
  ctx = tf.distribute.get_replica_context()
  replicas = ctx.num_replicas_in_sync
  slot = tf.one_hot(ctx.replica_id_in_sync_group, replicas, dtype=tf.int32)
  n = inputs.batch_size_of(outputs)
  gathered = {"__rows__": ctx.all_reduce(tf.distribute.ReduceOp.SUM,
                                         slot * n)}
  for key, value in outputs.items():
    value = tf.convert_to_tensor(value)
    dtype = value.dtype
    if dtype == tf.bool:
      value = tf.cast(value, tf.int32)
    pad = [[0, max_rows - n]] + [[0, 0]] * (value.shape.rank - 1)
    value = tf.pad(value, pad)
    placed = tf.cast(tf.reshape(slot, [replicas] + [1] * value.shape.rank),
                     value.dtype) * value[tf.newaxis]
    total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, placed)
    gathered[key] = tf.cast(total, tf.bool) if dtype == tf.bool else total
  return gathered


def split_gathered(gathered):
  """[{key: numpy rows}] per replica, from `gather_rows`' padded blocks."""
  rows = np.asarray(gathered["__rows__"])
  return [{key: np.asarray(value)[i, :rows[i]]
           for key, value in gathered.items() if key != "__rows__"}
          for i in range(len(rows))]
