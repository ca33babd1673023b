"""runner.inputs: what every runner dataset gets."""

import tensorflow as tf

from bert_tf2.runner import inputs


def _input_fn(params):
  return tf.data.Dataset.range(10).map(
      lambda x: {"x": x}, num_parallel_calls=tf.data.AUTOTUNE).batch(
          params["batch_size"]).prefetch(tf.data.AUTOTUNE)


def test_runner_datasets_are_not_autotuned_and_keep_their_batches():
  # Autotuning off: deleting a distributed iterator of an autotuned
  # pipeline waits for the tuning thread (up to a minute in TF 2.21).
  make = inputs.dataset_fn(_input_fn, {}, 4, "train", skip_batches=1)
  dataset = make(tf.distribute.InputContext())
  assert dataset.options().autotune.enabled is False
  assert [b["x"].numpy().tolist() for b in dataset] == [[4, 5, 6, 7], [8, 9]]
  strategy = tf.distribute.get_strategy()
  iterator = iter(strategy.distribute_datasets_from_function(make))
  assert next(iterator)["x"].numpy().tolist() == [4, 5, 6, 7]


def test_each_worker_gets_runs_of_its_local_replicas_batches():
  # Worker w of P workers with k local replicas gets batches
  # (s * P + w) * k + r, r < k, at step s (inputs.shard_batches).
  batches = tf.data.Dataset.range(12)
  got = {}
  for worker in range(2):
    ctx = tf.distribute.InputContext(num_input_pipelines=2,
                                     input_pipeline_id=worker,
                                     num_replicas_in_sync=6)
    got[worker] = [int(b) for b in inputs.shard_batches(batches, ctx)]
  assert got == {0: [0, 1, 2, 6, 7, 8], 1: [3, 4, 5, 9, 10, 11]}
  one_each = tf.distribute.InputContext(num_input_pipelines=2,
                                        input_pipeline_id=1,
                                        num_replicas_in_sync=2)
  assert [int(b) for b in inputs.shard_batches(batches, one_each)] == [
      1, 3, 5, 7, 9, 11]
