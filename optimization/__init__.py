"""BERT optimization for Keras 3 (replaces Google's TF1 optimization.py).

    import optimization
    opt = optimization.create_optimizer(init_lr=5e-5, num_train_steps=10000,
                                        num_warmup_steps=1000)
    # Either let runner.Estimator drive it, or use it directly:
    opt.set_variable_names(modeling.original_variable_names(model))
    opt.apply(grads, model.trainable_variables)
    opt.slot_variables()   # {"<name>/adam_m": var, "<name>/adam_v": var}

Contents:
  create_optimizer: warmup + linear decay schedule, AdamWeightDecay or LAMB.
  AdamWeightDecay (alias AdamWeightDecayOptimizer): the original update
    (no bias correction, eps 1e-6, decoupled weight decay, global-norm clip).
  Lamb: layer-wise trust ratio on top of the same moments.
  WarmupPolynomialDecay / warmup_polynomial_decay: the learning-rate schedule.
  GradientAccumulator: micro-batch gradient averaging.
"""

from optimization.accumulation import GradientAccumulator
from optimization.adamw import AdamWeightDecay
from optimization.adamw import AdamWeightDecayOptimizer
from optimization.base import BertOptimizer
from optimization.factory import EXCLUDE_FROM_WEIGHT_DECAY
from optimization.factory import create_optimizer
from optimization.lamb import Lamb
from optimization.schedule import WarmupPolynomialDecay
from optimization.schedule import warmup_polynomial_decay

__all__ = [
    "AdamWeightDecay", "AdamWeightDecayOptimizer", "BertOptimizer",
    "EXCLUDE_FROM_WEIGHT_DECAY", "GradientAccumulator", "Lamb",
    "WarmupPolynomialDecay", "create_optimizer", "warmup_polynomial_decay",
]
