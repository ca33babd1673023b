"""The input side of `runner.Estimator`: input_fn -> per-replica datasets.

input_fn(params) returns a tf.data.Dataset of feature dicts batched by
params["batch_size"], the PER-REPLICA batch (as TPUEstimator's per-core
batch). With several input pipelines (multi-worker) the runner shards the
batches itself; input_fns should not shard.
"""

import tensorflow as tf

from bert_tf2.common import fit_data


def dataset_fn(input_fn, params, per_replica_batch, mode, skip_batches=0):
  """A `distribute_datasets_from_function` function: input_fn(params) with
  params["batch_size"] = per_replica_batch, params["mode"] = mode ("train",
  "eval" or "predict"), less its first `skip_batches` batches."""
  def make(ctx):
    all_params = dict(params)
    all_params.update(batch_size=per_replica_batch, mode=mode,
                      input_context=ctx)
    dataset = input_fn(all_params)
    if not isinstance(dataset, tf.data.Dataset):
      raise TypeError("input_fn must return a tf.data.Dataset, got %r"
                      % type(dataset))
    if ctx.num_input_pipelines > 1:
      dataset = shard_batches(dataset, ctx)
    if skip_batches:
      dataset = dataset.skip(skip_batches)
    return dataset.with_options(fit_data.no_autotune_options())
  return make


def shard_batches(dataset, ctx):
  """This worker's batches: runs of `local replicas` consecutive batches.

  Worker w of P with k replicas gets batches (s*P + w)*k + r, r < k, at
  step s, so replica order (worker-major) is batch order: gathering the
  replicas' outputs across workers keeps the input order.
  """
  pipelines, index = ctx.num_input_pipelines, ctx.input_pipeline_id
  local = max(1, ctx.num_replicas_in_sync // pipelines)
  if local == 1:
    return dataset.shard(pipelines, index)
  keep = tf.autograph.experimental.do_not_convert(
      lambda i, _: (i // local) % pipelines == index)
  return dataset.enumerate().filter(keep).map(
      tf.autograph.experimental.do_not_convert(lambda _, x: x))


def element_spec(make_dataset):
  """The element_spec of the dataset `make_dataset` (from dataset_fn) makes."""
  return make_dataset(tf.distribute.InputContext()).element_spec


def dummy_batch(spec):
  """Zeros shaped like one element of `spec` (unknown dimensions -> 1).

  Example:
    >>> spec = {"x": tf.TensorSpec([None, 3], tf.int32)}
    >>> dummy_batch(spec)["x"].shape
    TensorShape([1, 3])
  """
  def make(s):
    if s.shape.rank is None:
      raise ValueError("input_fn: a feature of unknown rank (%s); give the "
                       "dataset's tensors static ranks" % (s,))
    shape = [1 if d is None else d for d in s.shape.as_list()]
    if s.dtype == tf.string:
      return tf.fill(shape, "")
    return tf.zeros(shape, s.dtype)
  return tf.nest.map_structure(make, spec)


def batch_size_of(features):
  """The leading dimension of the first tensor in `features` (int32).

  Example:
    >>> int(batch_size_of({"x": tf.zeros([5, 2])}))
    5
  """
  return tf.shape(tf.nest.flatten(features)[0])[0]
