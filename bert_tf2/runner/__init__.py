"""TPUEstimator replacement on tf.distribute + Keras 3 (docs/runner.md).

A `Task` (task.py) gives the model, loss, metrics and predictions;
`Estimator(task, RunConfig(output_dir, ...), optimizer_fn=...)` trains,
evaluates and predicts it. input_fn(params) -> tf.data.Dataset of feature
dicts batched by params["batch_size"] (the per-replica batch). Scripts get
the original runner/TPU flags from `runner.define_flags()`.
"""

from bert_tf2.runner.checkpoints import latest_checkpoint
from bert_tf2.runner.config import PRECISIONS
from bert_tf2.runner.config import RunConfig
from bert_tf2.runner.estimator import Estimator
from bert_tf2.runner.estimator import NonFiniteLossError
from bert_tf2.runner.flags import define_flags
from bert_tf2.runner.flags import estimator_options
from bert_tf2.runner.flags import make_estimator
from bert_tf2.runner.flags import early_stopping_from_flags
from bert_tf2.runner.periodic_eval import EarlyStopping
from bert_tf2.runner.periodic_eval import best_checkpoint
from bert_tf2.runner.flags import run_config_from_flags
from bert_tf2.runner.flags import strategy_from_FLAGS
from bert_tf2.runner.preemption import TrainingInterrupted
from bert_tf2.runner.results import format_eval_results
from bert_tf2.runner.startup import data_seed
from bert_tf2.runner.startup import start_strategy
from bert_tf2.runner.results import write_eval_results
from bert_tf2.runner.strategy import STRATEGIES
from bert_tf2.runner.strategy import strategy_from_flags
from bert_tf2.runner.task import ModelTask
from bert_tf2.runner.task import Task

__all__ = [
    "best_checkpoint", "data_seed", "define_flags",
    "early_stopping_from_flags", "EarlyStopping", "Estimator",
    "estimator_options", "format_eval_results",
    "latest_checkpoint", "make_estimator", "ModelTask",
    "NonFiniteLossError", "PRECISIONS", "run_config_from_flags",
    "RunConfig", "start_strategy", "STRATEGIES", "strategy_from_FLAGS",
    "strategy_from_flags", "Task", "TrainingInterrupted",
    "write_eval_results",
]
