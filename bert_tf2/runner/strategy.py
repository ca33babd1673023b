"""tf.distribute strategy from the original TPU flags (+ --strategy)."""

import os
import socket

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.runner import cluster as cluster_lib

STRATEGIES = ("default", "one_device", "mirrored", "multi_worker", "tpu")


DEFAULT_WORKER_TIMEOUT_SECS = 600


def _tpu_address_check(flag, tpu, timeout_secs):
  """Fails fast when a grpc://host:port TPU address (the value of --flag,
  tpu_name or master) does not answer."""
  if not tpu.startswith("grpc://"):
    return
  host, port = cluster_lib.split_address(tpu[len("grpc://"):], "--" + flag)
  try:
    socket.create_connection((host, port), timeout=timeout_secs).close()
  except OSError as e:
    raise InputError("--%s=%s: no TPU answers at %s:%d within %gs: %s"
                     % (flag, tpu, host, port, timeout_secs, e)) from e


def _tpu_strategy(tpu_name, tpu_zone, gcp_project, master, num_tpu_cores,
                  timeout_secs=DEFAULT_WORKER_TIMEOUT_SECS):
  """TPUStrategy via TPUClusterResolver, as the original's --use_tpu path.

  Any failure to find or reach the TPU is an InputError naming the flag;
  lookups over HTTP time out after `timeout_secs`.
  """
  flag, tpu = ("tpu_name", tpu_name) if tpu_name else ("master", master or "")
  what = "--%s=%s" % (flag, tpu) if tpu else "--use_tpu (no --tpu_name)"
  where = "".join(", --%s=%s" % (n, v) for n, v in (
      ("tpu_zone", tpu_zone), ("gcp_project", gcp_project)) if v)
  previous_timeout = socket.getdefaulttimeout()
  socket.setdefaulttimeout(timeout_secs)  # urllib lookups have none.
  try:
    _tpu_address_check(flag, tpu, timeout_secs)
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(
        tpu=tpu, zone=tpu_zone, project=gcp_project)
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
  except InputError:
    raise
  except Exception as e:  # pylint: disable=broad-except
    # URLError, HttpError, ValueError, OpError, ...: the TPU cannot be used.
    detail = " ".join(str(e).split())[:300] or type(e).__name__
    raise InputError("%s%s: cannot find or reach the TPU (%s: %s)"
                     % (what, where, type(e).__name__, detail)) from e
  finally:
    socket.setdefaulttimeout(previous_timeout)
  strategy = tf.distribute.TPUStrategy(resolver)
  if num_tpu_cores and strategy.num_replicas_in_sync != num_tpu_cores:
    logging.warning("--num_tpu_cores=%d but the TPU has %d cores; using %d",
                    num_tpu_cores, strategy.num_replicas_in_sync,
                    strategy.num_replicas_in_sync)
  return strategy


def _multi_worker_strategy(timeout_secs=DEFAULT_WORKER_TIMEOUT_SECS):
  """MultiWorkerMirroredStrategy from a checked TF_CONFIG, peers waited for.

  Must run before any other TensorFlow op of the process.
  """
  info = cluster_lib.parse_tf_config(os.environ.get("TF_CONFIG"))
  logging.info("TF_CONFIG: task %s:%d (%s) of %d; waiting up to %gs for %s",
               info.task_type, info.task_index, info.address,
               info.num_workers, timeout_secs, ", ".join(info.peers) or "-")
  cluster_lib.wait_for_peers(info, timeout_secs)
  try:
    return tf.distribute.MultiWorkerMirroredStrategy()
  except RuntimeError as e:
    if "at program startup" in str(e):
      raise RuntimeError(
          "--strategy=multi_worker: the strategy must be created before any "
          "other TensorFlow op of the process; call "
          "runner.start_strategy(FLAGS) first thing in main") from e
    raise


def strategy_from_flags(use_tpu=False, tpu_name=None, tpu_zone=None,
                        gcp_project=None, master=None, num_tpu_cores=8,
                        strategy=None,
                        worker_timeout_secs=DEFAULT_WORKER_TIMEOUT_SECS):
  """Returns the tf.distribute.Strategy the flags ask for.

  --use_tpu wins (TPUStrategy through TPUClusterResolver with --tpu_name or
  --master, --tpu_zone, --gcp_project). Otherwise --strategy:
    None/"": MirroredStrategy if 2+ GPUs are visible, else the default.
    "default": no distribution (the current device).
    "one_device": OneDeviceStrategy on GPU:0 if there is one, else CPU:0.
    "mirrored": MirroredStrategy over all visible GPUs (or CPU/logical CPUs).
    "multi_worker": MultiWorkerMirroredStrategy from TF_CONFIG, once every
      other task of the cluster answers (InputError after
      `worker_timeout_secs`).
    "tpu": same as --use_tpu.

  Example:
    >>> strategy_from_flags(strategy="default").num_replicas_in_sync
    1
  """
  if use_tpu or strategy == "tpu":
    return _tpu_strategy(tpu_name, tpu_zone, gcp_project, master,
                         num_tpu_cores, worker_timeout_secs)
  if strategy and strategy not in STRATEGIES:
    raise InputError("--strategy=%s: expected one of %s"
                     % (strategy, ", ".join(STRATEGIES)))
  if strategy == "multi_worker":
    return _multi_worker_strategy(worker_timeout_secs)
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
