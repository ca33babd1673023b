"""`Estimator`: train / evaluate / predict a `Task` on a tf.distribute strategy.

The TPUEstimator replacement: same life cycle (checkpoints in output_dir,
resume from the latest one, init_checkpoint for a fresh start, params
["batch_size"] for the input_fn), built on Keras 3 + tf.distribute.
The methods live in bert_tf2/runner/training.py (train), bert_tf2/runner/inference.py
(evaluate, predict) and bert_tf2/runner/estimator_base.py (shared plumbing).
"""

from bert_tf2.runner import estimator_base
from bert_tf2.runner import inference
from bert_tf2.runner import training

NonFiniteLossError = training.NonFiniteLossError


class Estimator(training.TrainingMixin, inference.InferenceMixin,
                estimator_base.EstimatorBase):
  """Trains, evaluates and predicts with a `runner.Task`.

  Args:
    task: a `runner.Task`.
    config: a `runner.RunConfig`.
    optimizer_fn: zero-argument callable returning a Keras optimizer, e.g.
      `lambda: optimization.create_optimizer(5e-5, 1000, 100)`; needed by
      `train` only. Called inside strategy.scope().
    init_checkpoint: model weights to start from when output_dir holds no
      checkpoint (as in the original, output_dir's latest checkpoint wins).
    train_batch_size: GLOBAL batch per optimizer step; split over replicas
      (and gradient-accumulation micro-batches); must divide evenly.
    eval_batch_size, predict_batch_size: global batches, split over replicas.
    params: extra entries for the input_fn's params dict.

  input_fn(params) returns a tf.data.Dataset of feature dicts batched by
  params["batch_size"], the PER-REPLICA batch (as TPUEstimator's per-core
  batch). With several input pipelines (multi-worker), the runner shards the
  batches itself; input_fns should not shard.
  """
