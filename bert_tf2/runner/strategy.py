"""tf.distribute strategy from the original TPU flags (+ --strategy)."""

import json
import os

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError

STRATEGIES = ("default", "one_device", "mirrored", "multi_worker", "tpu")


def _tpu_strategy(tpu_name, tpu_zone, gcp_project, master, num_tpu_cores):
  """TPUStrategy via TPUClusterResolver, as the original's --use_tpu path."""
  tpu = tpu_name or master or ""
  try:
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(
        tpu=tpu, zone=tpu_zone, project=gcp_project)
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
  except (ValueError, tf.errors.OpError, RuntimeError) as e:
    raise InputError("--use_tpu: cannot reach TPU %r (--tpu_name/--master, "
                     "--tpu_zone=%s, --gcp_project=%s): %s"
                     % (tpu, tpu_zone, gcp_project, e)) from e
  strategy = tf.distribute.TPUStrategy(resolver)
  if num_tpu_cores and strategy.num_replicas_in_sync != num_tpu_cores:
    logging.warning("--num_tpu_cores=%d but the TPU has %d cores; using %d",
                    num_tpu_cores, strategy.num_replicas_in_sync,
                    strategy.num_replicas_in_sync)
  return strategy


def _multi_worker_strategy():
  config = os.environ.get("TF_CONFIG")
  if not config:
    raise InputError("--strategy=multi_worker needs the TF_CONFIG environment "
                     "variable (cluster and task of this worker)")
  try:
    parsed = json.loads(config)
    parsed["cluster"]  # pylint: disable=pointless-statement
    parsed["task"]  # pylint: disable=pointless-statement
  except (ValueError, KeyError, TypeError) as e:
    raise InputError("TF_CONFIG is not valid JSON with 'cluster' and 'task': "
                     "%s" % e) from e
  return tf.distribute.MultiWorkerMirroredStrategy()


def strategy_from_flags(use_tpu=False, tpu_name=None, tpu_zone=None,
                        gcp_project=None, master=None, num_tpu_cores=8,
                        strategy=None):
  """Returns the tf.distribute.Strategy the flags ask for.

  --use_tpu wins (TPUStrategy through TPUClusterResolver with --tpu_name or
  --master, --tpu_zone, --gcp_project). Otherwise --strategy:
    None/"": MirroredStrategy if 2+ GPUs are visible, else the default.
    "default": no distribution (the current device).
    "one_device": OneDeviceStrategy on GPU:0 if there is one, else CPU:0.
    "mirrored": MirroredStrategy over all visible GPUs (or CPU/logical CPUs).
    "multi_worker": MultiWorkerMirroredStrategy from TF_CONFIG.
    "tpu": same as --use_tpu.

  Example:
    >>> strategy_from_flags(strategy="default").num_replicas_in_sync
    1
  """
  if use_tpu or strategy == "tpu":
    return _tpu_strategy(tpu_name, tpu_zone, gcp_project, master,
                         num_tpu_cores)
  if strategy and strategy not in STRATEGIES:
    raise InputError("--strategy=%s: expected one of %s"
                     % (strategy, ", ".join(STRATEGIES)))
  if strategy == "multi_worker":
    # Before anything else touches the TF runtime: collectives must be
    # configured at program startup.
    return _multi_worker_strategy()
  gpus = tf.config.list_logical_devices("GPU")
  if not strategy:
    strategy = "mirrored" if len(gpus) >= 2 else "default"
  if strategy == "default":
    return tf.distribute.get_strategy()
  if strategy == "one_device":
    return tf.distribute.OneDeviceStrategy(
        "/gpu:0" if gpus else "/cpu:0")
  if gpus:  # "mirrored"
    return tf.distribute.MirroredStrategy([d.name for d in gpus])
  cpus = tf.config.list_logical_devices("CPU")
  return tf.distribute.MirroredStrategy([d.name for d in cpus])
