"""`--jit_compile` left unset: XLA or not, chosen for the run at hand.

The rule, from the measurements in docs/performance.md ("What the defaults
are"), unless the flag is given:
  accelerator                        -> off (not measured here)
  CPU, bfloat16 or float16           -> off (XLA halves bfloat16 matmuls)
  CPU, float32, estimated training compute under MIN_XLA_SECONDS -> off
  CPU, float32, longer               -> on
Below float32 outside XLA the step's ops between its oneDNN matmuls can be
fused into XLA clusters instead (`loops.TrainSteps`):
`choose_cluster_elementwise` takes that for runs of at least
MIN_CLUSTER_SECONDS of estimated compute.
The estimate is the model's training matmul FLOPs (`modeling.flops`) for
every sequence of the run at full length, at EFFECTIVE_GFLOPS.
`choose_jit_compile` is the rule (a pure function); `resolve_jit_compile`
applies it to a run's settings and logs the choice.

  >>> choose_jit_compile(None, "float32", accelerator=False,
  ...                    estimated_seconds=900)[0]
  True
  >>> choose_jit_compile(None, "bfloat16", accelerator=False,
  ...                    estimated_seconds=900)[0]
  False
  >>> choose_jit_compile(False, "float32", accelerator=False,
  ...                    estimated_seconds=900)
  (False, '--jit_compile=false')
"""

import os

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.runner import cpu_probe
from modeling import flops as flops_lib

# The low end of a float32 training step's measured matmul rate (GFLOP/s);
# used only to put compute into seconds.
EFFECTIVE_GFLOPS = 200.0
# Compute needed to earn back XLA's compilation at its smallest gain.
MIN_XLA_SECONDS = 300.0


def estimate_train_seconds(bert_config, tokens_per_example, seq_length,
                           examples, num_masked=0,
                           gflops=EFFECTIVE_GFLOPS):
  """Seconds of training matmuls for `examples` examples at full length.

  Args:
    bert_config: BertConfig (or dict of its sizes).
    tokens_per_example: tokens the model reads per example (seq_length;
      num_choices * seq_length for multiple choice).
    seq_length: the length of one sequence (attention's cost).
    examples: train_batch_size * num_train_steps.
    num_masked: masked positions per sequence (pretraining), else 0.
    gflops: the assumed rate.
  """
  sequences = examples * tokens_per_example / float(seq_length)
  per_sequence = flops_lib.train_flops_per_sequence(bert_config, seq_length,
                                                    num_masked)
  return sequences * per_sequence / (gflops * 1e9)


def choose_jit_compile(requested, precision, accelerator, estimated_seconds):
  """(jit_compile, reason): the flag's value if given, else the rule above.

  Args:
    requested: True/False from --jit_compile, or None (unset).
    precision: "float32", "bfloat16" or "float16".
    accelerator: whether the run is on a GPU or TPU.
    estimated_seconds: `estimate_train_seconds` of the run.
  """
  if requested is not None:
    return bool(requested), "--jit_compile=%s" % str(bool(requested)).lower()
  if accelerator:
    return False, ("on a GPU/TPU (XLA's gain there not measured by this "
                   "project)")
  if precision != "float32":
    return False, ("%s on CPU (XLA halves TensorFlow's bfloat16 matmul "
                   "rate; no fast float16 CPU kernels)" % precision)
  minutes = estimated_seconds / 60.0
  if estimated_seconds < MIN_XLA_SECONDS:
    return False, ("float32 on CPU, about %.1f min of training compute: too "
                   "short to earn back XLA's compilation (pays from about "
                   "%d min)" % (minutes, MIN_XLA_SECONDS // 60))
  return True, ("float32 training on CPU, about %.0f min of compute "
                "(XLA measured +11-25%% on CPUs)" % minutes)


def resolve_jit_compile(run_config, requested, precision, use_tpu,
                        estimated_seconds, accelerator=None):
  """Sets run_config.jit_compile and .cluster_elementwise by the rules
  above; logs the choices.

  Args:
    run_config: the `runner.RunConfig` of the run (changed in place).
    requested, precision, use_tpu: --jit_compile (None: unset),
      --precision, --use_tpu.
    estimated_seconds: `estimate_train_seconds` of the run.
    accelerator: whether a GPU/TPU is used (default: --use_tpu or a GPU).

  Returns:
    bool, the choice.
  """
  if accelerator is None:
    accelerator = bool(use_tpu) or not cpu_probe.on_cpu_only()
  on, reason = choose_jit_compile(requested, precision, accelerator,
                                  estimated_seconds)
  run_config.jit_compile = on
  logging.info("XLA for the training step: %s (%s)%s", "on" if on else "off",
               reason, "" if requested is not None else
               "; --jit_compile=true/false overrides")
  cluster, why = choose_cluster_elementwise(precision, accelerator, on,
                                            estimated_seconds)
  run_config.cluster_elementwise = cluster
  if precision != "float32":
    logging.info("XLA clusters between the training step's matmuls: %s (%s)",
                 "on" if cluster else "off", why)
  return on


# Compute needed to earn back the elementwise clusters' compilation (26 s
# measured) at about 2% of the estimate saved (docs/performance.md).
MIN_CLUSTER_SECONDS = 1300.0


def choose_cluster_elementwise(precision, accelerator, jit_compile,
                               estimated_seconds):
  """(cluster, reason): whether the step's ops between its matmuls are left
  to XLA's elementwise clusters (`loops.TrainSteps(cluster_elementwise=)`).

    >>> choose_cluster_elementwise("bfloat16", False, False, 3600)[0]
    True
    >>> choose_cluster_elementwise("float32", False, False, 3600)[0]
    False
  """
  if precision == "float32":
    return False, "float32 keeps the original's kernels"
  if precision != "bfloat16":
    return False, "%s: not measured by this project" % precision
  if accelerator:
    return False, "on a GPU/TPU (not measured by this project)"
  if jit_compile:
    return False, "the whole step is compiled (--jit_compile)"
  if estimated_seconds < MIN_CLUSTER_SECONDS:
    return False, ("about %.1f min of training compute: too short to earn "
                   "back their compilation (pays from about %d min)"
                   % (estimated_seconds / 60.0, MIN_CLUSTER_SECONDS // 60))
  return True, ("bfloat16 on CPU outside XLA, about %.0f min of compute "
                "(measured +5-9%%)" % (estimated_seconds / 60.0))


# Inference precision (docs/performance.md, "Precision and inference"): by
# default the one the run's answers were made in (model.json's "precision";
# float32 without one); INFERENCE_PRECISION_ENV, when set, where no
# argument asks one; "auto" by `choose_inference_precision`.
INFERENCE_PRECISIONS = ("auto", "float32", "bfloat16", "float16", "int8")
INFERENCE_PRECISION_ENV = "BERT_TF2_INFERENCE_PRECISION"
BFLOAT16_CPU_FLAGS = ("avx512_bf16", "amx_bf16")
MIN_BFLOAT16_SPEEDUP = 1.3


def choose_inference_precision(requested, cpu_flags, bfloat16_ratio,
                               accelerator, offered=INFERENCE_PRECISIONS,
                               recorded="float32"):
  """(precision, reason): `requested` if given, else `recorded`; "auto":
  bfloat16 on a CPU with BFLOAT16_CPU_FLAGS whose bfloat16 matmuls run at
  least MIN_BFLOAT16_SPEEDUP x float32, else float32 (never int8).

  Args:
    requested: one of INFERENCE_PRECISIONS, or None (the recorded one).
    cpu_flags: the CPU's flags (`cpu_probe.cpu_model_and_flags()[1]`).
    bfloat16_ratio: function () -> bfloat16 / float32 matmul rate (called
      only for "auto" on a CPU with bfloat16 instructions).
    accelerator: whether a GPU or TPU is used.
    offered: the precisions the caller can run.
    recorded: the precision the model's run answered in (model.json's).

  Raises:
    ValueError: `requested` (or `recorded`) is unknown or not offered.

  >>> choose_inference_precision(None, ["avx512_bf16"], lambda: 2.0, False)
  ('float32', 'the precision its run answered in')
  >>> choose_inference_precision("auto", ["avx2"], lambda: 2.0, False)[0]
  'float32'
  >>> choose_inference_precision("auto", ["avx512_bf16"], lambda: 2.0,
  ...                            False)[0]
  'bfloat16'
  """
  if requested is None:
    if recorded not in offered:
      raise ValueError("the recorded precision %r is not offered here "
                       "(expected one of %s); give precision=" % (
                           recorded, ", ".join(offered)))
    return recorded, "the precision its run answered in"
  if requested not in offered:
    raise ValueError("precision=%r: expected one of %s" % (
        requested, ", ".join(offered)))
  if requested != "auto":
    return requested, "precision=%s" % requested
  if accelerator:
    return "float32", "auto, on a GPU/TPU (bfloat16 there not measured here)"
  present = [f for f in BFLOAT16_CPU_FLAGS if f in set(cpu_flags)]
  if not present:
    return "float32", "auto: this CPU has no bfloat16 instructions (%s)" % (
        "/".join(BFLOAT16_CPU_FLAGS))
  ratio = bfloat16_ratio()
  if ratio < MIN_BFLOAT16_SPEEDUP:
    return "float32", ("auto: this CPU has %s but its bfloat16 matmuls run "
                       "only %.2fx float32 (under %.1fx)" % (
                           present[0], ratio, MIN_BFLOAT16_SPEEDUP))
  return "bfloat16", ("auto: this CPU has %s and its bfloat16 matmuls run "
                      "%.2fx float32" % (present[0], ratio))


def resolve_inference_precision(requested, what, offered=INFERENCE_PRECISIONS,
                                recorded="float32", environ=None,
                                cpu_flags=None, bfloat16_ratio=None,
                                accelerator=None):
  """The precision `what` (e.g. "ClassifierPredictor") runs in; logs one
  line. Arguments after `recorded` default to this machine's (see
  `choose_inference_precision`).

  Raises:
    InputError: the precision asked (argument or environment) is unknown
      or not offered by `what`.
  """
  environ = os.environ if environ is None else environ
  source = "precision"
  if requested is None and environ.get(INFERENCE_PRECISION_ENV):
    requested, source = environ[INFERENCE_PRECISION_ENV], (
        INFERENCE_PRECISION_ENV)
  if requested == "auto":  # The CPU is probed for "auto" alone.
    if cpu_flags is None:
      cpu_flags = cpu_probe.cpu_model_and_flags()[1]
    if accelerator is None:
      accelerator = not cpu_probe.on_cpu_only()
  if bfloat16_ratio is None:
    bfloat16_ratio = lambda: cpu_probe.bfloat16_speedup()["ratio"]
  try:
    chosen, reason = choose_inference_precision(
        requested, cpu_flags or (), bfloat16_ratio, bool(accelerator),
        offered, recorded)
  except ValueError as e:
    raise InputError("%s: %s%s" % (what, str(e).replace(
        "precision=", source + "=", 1), "" if source == "precision" else
        " (from the environment)")) from None
  if source != "precision":
    reason = "%s=%s" % (source, chosen)
  logging.info("%s precision: %s (%s)%s", what, chosen, reason,
               "; precision=... or %s overrides" % INFERENCE_PRECISION_ENV
               if source == "precision" and requested is None else "")
  return chosen
