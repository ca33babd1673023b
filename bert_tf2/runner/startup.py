"""Start-up of a training script: the distribution strategy comes first.

MultiWorkerMirroredStrategy must configure TensorFlow's collectives before
the process runs any other TensorFlow op, and a TPU system is initialized
before anything is placed on it, so every training pipeline calls
`strategy = runner.start_strategy(FLAGS)` as its first step;
`runner.strategy_from_FLAGS(FLAGS)` later returns the same object.
"""

import threading

from bert_tf2.runner import strategy as strategy_lib

# Every worker of a multi-worker job must read the same data order: the
# runner splits each pipeline's batches between the workers.
MULTI_WORKER_DATA_SEED = 12345

_LOCK = threading.Lock()
_STARTED = {}  # {"key": flag values, "strategy": the strategy}


def data_seed(flag_values):
  """Seed for training-data shuffles: fixed in a multi-worker job, else None
  (the original's unseeded shuffles)."""
  f = flag_values
  multi_worker = f.strategy == "multi_worker" and not f.use_tpu
  return MULTI_WORKER_DATA_SEED if multi_worker else None


def start_strategy(flag_values):
  """Creates (once per process) the strategy the flags ask for; returns it.

  Later calls with the same distribution flags return the same strategy.

  Args:
    flag_values: absl FLAGS or any object with the runner's flags as
      attributes.

  Raises:
    InputError: see `strategy.strategy_from_flags`.
  """
  f = flag_values
  key = (bool(f.use_tpu), f.tpu_name, f.tpu_zone, f.gcp_project, f.master,
         f.num_tpu_cores, f.strategy)
  timeout = f.worker_timeout_secs  # Read even when already started.
  with _LOCK:
    if _STARTED.get("key") == key:
      return _STARTED["strategy"]
    strategy = strategy_lib.strategy_from_flags(
        use_tpu=f.use_tpu, tpu_name=f.tpu_name, tpu_zone=f.tpu_zone,
        gcp_project=f.gcp_project, master=f.master,
        num_tpu_cores=f.num_tpu_cores, strategy=f.strategy,
        worker_timeout_secs=timeout)
    _STARTED.update(key=key, strategy=strategy)
    return strategy
