"""`RunConfig`: where and how `runner.Estimator` runs."""

from bert_tf2.common import InputError

PRECISIONS = ("float32", "bfloat16", "float16")


class RunConfig(object):
  """Run settings (the TPUEstimator RunConfig + TPUConfig, flattened).

  Args:
    output_dir: directory for checkpoints (model.ckpt-STEP) and summaries.
    save_checkpoints_steps: save every this many global steps (and always
      at the end of `train`); None or 0: only at the end.
    iterations_per_loop: training steps run inside one tf.function call.
    keep_checkpoint_max: keep the newest N checkpoints; None or 0 keeps all.
    strategy: a tf.distribute.Strategy (see `runner.strategy_from_flags`);
      None: the default (single-device) strategy.
    precision: "float32", "bfloat16" (mixed_bfloat16) or "float16"
      (mixed_float16 with dynamic loss scaling).
    jit_compile: compile the training step with XLA.
    cluster_elementwise: let XLA fuse the step's ops between its matmuls
      where `loops.TrainSteps` would; False: never.
    log_step_count_steps: log progress at most this often (in steps).
    gradient_accumulation_steps: micro-batches per optimizer step; the
      global batch (train_batch_size) is split into this many micro-batches.
    skip_consumed_batches: on resume, skip the batches the restored steps
      already consumed (the original restarted the input pipeline).
    handle_signals: on SIGTERM/SIGINT during `train`, stop, save a checkpoint
      at the current step and raise `runner.TrainingInterrupted`.
    allow_new_batch_shape: resume although the train batch size or sequence
      length differ (`checkpoints.check_batch_shape`).
  """

  def __init__(self, output_dir, save_checkpoints_steps=1000,
               iterations_per_loop=1000, keep_checkpoint_max=5,
               strategy=None, precision="float32", jit_compile=False,
               log_step_count_steps=100, gradient_accumulation_steps=1,
               skip_consumed_batches=False, handle_signals=True,
               allow_new_batch_shape=False, cluster_elementwise=True):
    if not output_dir:
      raise InputError("--output_dir is required")
    if int(iterations_per_loop) < 1:
      raise InputError("--iterations_per_loop=%s: must be >= 1"
                       % iterations_per_loop)
    if save_checkpoints_steps is not None and int(save_checkpoints_steps) < 0:
      raise InputError("--save_checkpoints_steps=%s: must be >= 0"
                       % save_checkpoints_steps)
    if keep_checkpoint_max is not None and int(keep_checkpoint_max) < 0:
      raise InputError("--keep_checkpoint_max=%s: must be >= 0"
                       % keep_checkpoint_max)
    if precision not in PRECISIONS:
      raise InputError("--precision=%s: expected one of %s"
                       % (precision, ", ".join(PRECISIONS)))
    if int(gradient_accumulation_steps) < 1:
      raise InputError("--gradient_accumulation_steps=%s: must be >= 1"
                       % gradient_accumulation_steps)
    self.output_dir = str(output_dir)
    self.save_checkpoints_steps = int(save_checkpoints_steps or 0)
    self.iterations_per_loop = int(iterations_per_loop)
    self.keep_checkpoint_max = int(keep_checkpoint_max or 0)
    self.strategy = strategy
    self.precision = precision
    self.jit_compile = bool(jit_compile)
    self.cluster_elementwise = bool(cluster_elementwise)
    self.log_step_count_steps = max(1, int(log_step_count_steps or 1))
    self.gradient_accumulation_steps = int(gradient_accumulation_steps)
    self.skip_consumed_batches = bool(skip_consumed_batches)
    self.handle_signals = bool(handle_signals)
    self.allow_new_batch_shape = bool(allow_new_batch_shape)
