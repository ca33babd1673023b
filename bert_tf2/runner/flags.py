"""The runner/TPU flags of the original scripts, plus the new ones.

    runner.define_flags()            # in the script, before app.run
    strategy = runner.strategy_from_FLAGS(FLAGS)
    config = runner.run_config_from_flags(FLAGS, strategy)
"""

from absl import flags

from bert_tf2.common import InputError
import optimization
from bert_tf2.runner import config as config_lib
from bert_tf2.runner import estimator as estimator_lib
from bert_tf2.runner import periodic_eval
from bert_tf2.runner import startup
from bert_tf2.runner import strategy as strategy_lib


def define_flags(flag_values=flags.FLAGS):
  """Defines the runner flags on `flag_values` (each script calls it once)."""
  def d(kind, name, default, help_text, **kwargs):
    getattr(flags, "DEFINE_" + kind)(name, default, help=help_text,
                                     flag_values=flag_values, **kwargs)
  d("bool", "use_tpu", False, "Whether to use TPU or GPU/CPU.")
  d("string", "tpu_name", None,
    "The Cloud TPU to use for training. This should be either the name used "
    "when creating the Cloud TPU, or a grpc://ip.address.of.tpu:8470 url.")
  d("string", "tpu_zone", None,
    "[Optional] GCE zone where the Cloud TPU is located in.")
  d("string", "gcp_project", None,
    "[Optional] Project name for the Cloud TPU-enabled project.")
  d("string", "master", None, "[Optional] TensorFlow master URL.")
  d("integer", "num_tpu_cores", 8,
    "Only used if `use_tpu` is True. Total number of TPU cores to use.")
  d("integer", "iterations_per_loop", 1000,
    "How many training steps to run inside one tf.function call.")
  d("integer", "save_checkpoints_steps", 1000,
    "How often (in global steps) to save the model checkpoint.")
  d("enum", "strategy", None,
    "Distribution when not --use_tpu: default (one device), one_device, "
    "mirrored (all local GPUs), multi_worker (TF_CONFIG). Unset: mirrored "
    "if 2+ GPUs, else default.", enum_values=list(strategy_lib.STRATEGIES))
  d("integer", "worker_timeout_secs",
    strategy_lib.DEFAULT_WORKER_TIMEOUT_SECS,
    "--strategy=multi_worker: fail (exit 1) if the other workers of "
    "TF_CONFIG do not answer within this many seconds; --use_tpu: timeout "
    "of the TPU lookups.")
  d("enum", "precision", "float32",
    "Computation precision; float16 uses dynamic loss scaling.",
    enum_values=list(config_lib.PRECISIONS))
  d("bool", "jit_compile", None,
    "Compile the training step with XLA. Unset: chosen for the run and "
    "logged in one line (on for float32 training on CPU long enough to "
    "earn back the compilation; off for bfloat16/float16 on CPU and on "
    "GPU/TPU): see bert_tf2/runner/speed_defaults.py.")
  d("integer", "keep_checkpoint_max", 5,
    "Keep this many newest checkpoints (0: all).")
  d("integer", "gradient_accumulation_steps", 1,
    "Split each train batch into this many micro-batches and accumulate "
    "their gradients (same update, less memory).")
  d("enum", "optimizer", "adamw", "Optimizer: adamw (BERT's) or lamb.",
    enum_values=["adamw", "lamb"])
  d("bool", "skip_consumed_batches", False,
    "On resume, skip the input batches the restored steps consumed.")
  d("bool", "allow_new_batch_shape", False,
    "Resume from --output_dir's checkpoint although --train_batch_size or "
    "--max_seq_length differ from those it was trained with (recorded in "
    "output_dir/batch_shape.json), e.g. the original's second pretraining "
    "phase at a longer sequence length; without it such a resume is "
    "refused.")
  d("integer", "eval_every_n_steps", 0,
    "Evaluate on the eval set every this many training steps (and at the "
    "end), appending to output_dir/eval_history.jsonl. 0: only after "
    "training, as the original.")
  d("string", "early_stopping_metric", None,
    "Eval result that defines the best checkpoint and early stopping, e.g. "
    "eval_accuracy, eval_loss, masked_lm_accuracy.")
  d("enum", "early_stopping_mode", None,
    "max or min; unset: min for names containing 'loss', else max.",
    enum_values=list(periodic_eval.MODES))
  d("integer", "early_stopping_patience", 0,
    "Stop training after this many evaluations without improvement of "
    "--early_stopping_metric (0: never stop).")
  d("bool", "keep_best_checkpoint", False,
    "Keep the checkpoint of the best evaluation in output_dir/best/ with "
    "best_metrics.json.")


def early_stopping_from_flags(flag_values=flags.FLAGS):
  """(every_n_steps, EarlyStopping or None, keep_best) from the flags.

  Raises:
    InputError: inconsistent flags.
  """
  f = flag_values
  every = int(f.eval_every_n_steps or 0)
  if every < 0:
    raise InputError("--eval_every_n_steps=%d: must be >= 0" % every)
  wanted = [name for name, on in (
      ("early_stopping_metric", f.early_stopping_metric),
      ("early_stopping_mode", f.early_stopping_mode),
      ("early_stopping_patience", f.early_stopping_patience),
      ("keep_best_checkpoint", f.keep_best_checkpoint)) if on]
  if wanted and not every:
    raise InputError("--%s needs --eval_every_n_steps > 0" % wanted[0])
  stopping = None
  if f.early_stopping_metric:
    stopping = periodic_eval.EarlyStopping(
        f.early_stopping_metric, f.early_stopping_mode,
        f.early_stopping_patience)
  elif wanted:
    raise InputError("--%s needs --early_stopping_metric" % wanted[0])
  return every, stopping, bool(f.keep_best_checkpoint)


def strategy_from_FLAGS(flag_values=flags.FLAGS):  # pylint: disable=invalid-name
  """`strategy_from_flags` with the values of the defined flags (the one
  `startup.start_strategy` created for the same flags, if any)."""
  return startup.start_strategy(flag_values)


def run_config_from_flags(flag_values=flags.FLAGS, strategy=None,
                          output_dir=None, **overrides):
  """A RunConfig from the flags (output_dir from --output_dir); progress is
  logged every min(100, --iterations_per_loop) steps."""
  f = flag_values
  kwargs = dict(
      output_dir=output_dir or f.output_dir,
      save_checkpoints_steps=f.save_checkpoints_steps,
      iterations_per_loop=f.iterations_per_loop,
      log_step_count_steps=min(100, f.iterations_per_loop),
      keep_checkpoint_max=f.keep_checkpoint_max,
      strategy=strategy, precision=f.precision,
      jit_compile=bool(f.jit_compile),
      gradient_accumulation_steps=f.gradient_accumulation_steps,
      skip_consumed_batches=f.skip_consumed_batches,
      allow_new_batch_shape=f.allow_new_batch_shape)
  kwargs.update(overrides)
  return config_lib.RunConfig(**kwargs)


def estimator_options(flag_values=flags.FLAGS):
  """The keyword arguments of `make_estimator`, read from the flags once."""
  f = flag_values
  return dict(learning_rate=f.learning_rate, optimizer=f.optimizer,
              use_tpu=bool(f.use_tpu), init_checkpoint=f.init_checkpoint,
              train_batch_size=f.train_batch_size,
              # run_squad.py has none: it evaluates with its predict batch.
              eval_batch_size=getattr(f, "eval_batch_size", None),
              predict_batch_size=f.predict_batch_size,
              max_seq_length=f.max_seq_length)


def make_estimator(task, config, num_train_steps=None, num_warmup_steps=0,
                   learning_rate_multipliers=None, *, learning_rate,
                   optimizer, use_tpu, init_checkpoint, train_batch_size,
                   eval_batch_size, predict_batch_size, max_seq_length):
  """The fine-tuning scripts' `Estimator`.

  Args:
    task: a `runner.Task`.
    config: a `runner.RunConfig` (see `run_config_from_flags`).
    num_train_steps: int or None (no training): the schedule's length.
    num_warmup_steps: int, warmup steps of the schedule.
    learning_rate_multipliers: optional {regex on original variable names:
      factor}; default: the task's `learning_rate_multipliers`, if any.
    The keyword-only arguments: `estimator_options`.

  Returns:
    runner.Estimator.
  """
  if learning_rate_multipliers is None:
    learning_rate_multipliers = getattr(task, "learning_rate_multipliers",
                                        None)

  def optimizer_fn():
    return optimization.create_optimizer(
        learning_rate, num_train_steps or 1, num_warmup_steps or 0,
        use_tpu=use_tpu, optimizer=optimizer,
        learning_rate_multipliers=learning_rate_multipliers)
  return estimator_lib.Estimator(
      task, config, optimizer_fn=optimizer_fn,
      init_checkpoint=init_checkpoint, train_batch_size=train_batch_size,
      eval_batch_size=eval_batch_size, predict_batch_size=predict_batch_size,
      max_seq_length=max_seq_length)
