"""The runner/TPU flags of the original scripts, plus the new ones.

    from absl import flags
    from bert_tf2 import runner
    runner.define_flags()            # in the script, before app.run
    ...
    FLAGS = flags.FLAGS
    strategy = runner.strategy_from_FLAGS(FLAGS)
    config = runner.run_config_from_flags(FLAGS, strategy)

Original flags and defaults: --use_tpu=False, --tpu_name, --tpu_zone,
--gcp_project, --master, --num_tpu_cores=8, --iterations_per_loop=1000,
--save_checkpoints_steps=1000. New: --strategy, --precision,
--jit_compile, --keep_checkpoint_max, --gradient_accumulation_steps,
--optimizer, --skip_consumed_batches.
"""

from absl import flags

from bert_tf2.runner import config as config_lib
from bert_tf2.runner import strategy as strategy_lib


def _define(kind, name, default, help_text, flag_values, **kwargs):
  if name in flag_values:  # The script defined it already: keep that one.
    return
  if kind == "enum":
    flags.DEFINE_enum(name, default, kwargs.pop("enum_values"), help_text,
                      flag_values=flag_values, **kwargs)
    return
  definer = {"bool": flags.DEFINE_bool, "string": flags.DEFINE_string,
             "integer": flags.DEFINE_integer}[kind]
  definer(name, default, help_text, flag_values=flag_values, **kwargs)


def define_flags(flag_values=flags.FLAGS):
  """Defines the runner flags (those not defined yet) on `flag_values`."""
  d = lambda *a, **k: _define(*a, flag_values=flag_values, **k)  # pylint: disable=unnecessary-lambda-assignment
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
    "How many steps to run inside one tf.function call.")
  d("integer", "save_checkpoints_steps", 1000,
    "How often to save the model checkpoint.")
  d("enum", "strategy", None,
    "Distribution when not --use_tpu: default (one device), one_device, "
    "mirrored (all local GPUs), multi_worker (TF_CONFIG). Unset: mirrored "
    "if 2+ GPUs, else default.", enum_values=list(strategy_lib.STRATEGIES))
  d("enum", "precision", "float32",
    "Computation precision; float16 uses dynamic loss scaling.",
    enum_values=list(config_lib.PRECISIONS))
  d("bool", "jit_compile", False, "Compile the training step with XLA.")
  d("integer", "keep_checkpoint_max", 5,
    "Keep this many newest checkpoints (0: all).")
  d("integer", "gradient_accumulation_steps", 1,
    "Split each train batch into this many micro-batches and accumulate "
    "their gradients (same update, less memory).")
  d("enum", "optimizer", "adamw", "Optimizer: adamw (BERT's) or lamb.",
    enum_values=["adamw", "lamb"])
  d("bool", "skip_consumed_batches", False,
    "On resume, skip the input batches the restored steps consumed.")


def strategy_from_FLAGS(flag_values=flags.FLAGS):  # pylint: disable=invalid-name
  """`strategy_from_flags` with the values of the defined flags."""
  f = flag_values
  return strategy_lib.strategy_from_flags(
      use_tpu=f.use_tpu, tpu_name=f.tpu_name, tpu_zone=f.tpu_zone,
      gcp_project=f.gcp_project, master=f.master,
      num_tpu_cores=f.num_tpu_cores, strategy=f.strategy)


def run_config_from_flags(flag_values=flags.FLAGS, strategy=None,
                          output_dir=None, **overrides):
  """A RunConfig from the flags (output_dir from --output_dir).

  Progress is logged every min(100, --iterations_per_loop) steps: at every
  loop's end when loops are short, so --iterations_per_loop also sets how
  often a script reports (step/total, rate, elapsed, ETA).
  """
  f = flag_values
  kwargs = dict(
      output_dir=output_dir or f.output_dir,
      save_checkpoints_steps=f.save_checkpoints_steps,
      iterations_per_loop=f.iterations_per_loop,
      log_step_count_steps=min(100, f.iterations_per_loop),
      keep_checkpoint_max=f.keep_checkpoint_max,
      strategy=strategy, precision=f.precision, jit_compile=f.jit_compile,
      gradient_accumulation_steps=f.gradient_accumulation_steps,
      skip_consumed_batches=f.skip_consumed_batches)
  kwargs.update(overrides)
  return config_lib.RunConfig(**kwargs)
