"""`create_optimizer`: the BERT optimizer and learning-rate schedule."""

import numbers

from optimization import adamw
from optimization import lamb
from optimization import schedule

# Variables whose original names match are not weight-decayed (as in BERT).
EXCLUDE_FROM_WEIGHT_DECAY = ("LayerNorm", "layer_norm", "bias")
OPTIMIZERS = ("adamw", "lamb")


def create_optimizer(init_lr, num_train_steps, num_warmup_steps,
                     use_tpu=False, optimizer="adamw", weight_decay_rate=0.01,
                     beta_1=0.9, beta_2=0.999, epsilon=1e-6, clip_norm=1.0,
                     exclude_from_weight_decay=EXCLUDE_FROM_WEIGHT_DECAY,
                     variable_names=None, lr_step_offset=1,
                     learning_rate_multipliers=None):
  """Creates the optimizer used to pre-train and fine-tune BERT.

  Linear warmup from 0 to `init_lr` over `num_warmup_steps`, linear decay to
  0 at `num_train_steps` (from step 0), AdamWeightDecay (or LAMB) with
  weight decay 0.01 except LayerNorm/bias variables, gradients clipped to
  global norm 1.0.

  Unlike the TF1 original, this returns a Keras optimizer, not a train op:
  the loss and the global step are handled by `runner.Estimator`. `use_tpu`
  is accepted for compatibility (cross-replica averaging is done by the
  runner on every strategy).

  Args:
    init_lr: float, peak learning rate.
    num_train_steps: int, total steps (the decay reaches 0 there).
    num_warmup_steps: int, warmup steps (0: none).
    use_tpu: ignored (kept for call compatibility).
    optimizer: "adamw" or "lamb".
    weight_decay_rate, beta_1, beta_2, epsilon, clip_norm: see
      `AdamWeightDecay`.
    exclude_from_weight_decay: regexes on original variable names.
    variable_names: optional {original_name: variable}; else set later with
      `optimizer.set_variable_names` (the runner does).
    lr_step_offset: the update made at global step s uses the schedule's
      rate at s + lr_step_offset. The original groups the update with
      `global_step.assign(global_step + 1)` without ordering them, and the
      TF1 executor (CPU/GPU) almost always runs the increment first (29 of
      30 runs in our measurement), so its updates use the rate of s + 1:
      the first update is not a zero step and the last one (at
      num_train_steps - 1) is. 1 reproduces that deterministically; 0 gives
      the documented intent (rate of s).
    learning_rate_multipliers: optional {regex on original names: factor}
      (e.g. {"^crf/": 100.0}): those variables get factor x the rate.

  Returns:
    An `AdamWeightDecay` or `Lamb` instance.

  Example:
    >>> opt = create_optimizer(5e-5, num_train_steps=1000,
    ...                        num_warmup_steps=100)
    >>> round(float(opt.learning_rate), 12)  # 1st update: 1/100 of the peak
    5e-07
  """
  del use_tpu
  if not isinstance(init_lr, numbers.Real) or isinstance(init_lr, bool):
    raise TypeError(
        "create_optimizer(init_lr, num_train_steps, num_warmup_steps, ...) "
        "takes the learning rate first and returns a Keras optimizer; the TF1 "
        "form create_optimizer(loss, ...) returning a train op is replaced by "
        "runner.Estimator. Got init_lr=%r" % (init_lr,))
  if optimizer not in OPTIMIZERS:
    raise ValueError("--optimizer=%s: expected one of %s"
                     % (optimizer, ", ".join(OPTIMIZERS)))
  lr = schedule.WarmupPolynomialDecay(init_lr, num_train_steps,
                                      num_warmup_steps,
                                      step_offset=lr_step_offset)
  cls = adamw.AdamWeightDecay if optimizer == "adamw" else lamb.Lamb
  opt = cls(learning_rate=lr, weight_decay_rate=weight_decay_rate,
            beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
            exclude_from_weight_decay=list(exclude_from_weight_decay or []),
            clip_norm=clip_norm,
            learning_rate_multipliers=learning_rate_multipliers)
  if variable_names:
    opt.set_variable_names(variable_names)
  return opt
