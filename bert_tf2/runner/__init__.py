"""TPUEstimator replacement on tf.distribute + Keras 3.

API (see docs/runner.md for details; a `Task`: bert_tf2/runner/task.py):

    import runner, optimization

    strategy = runner.strategy_from_flags(use_tpu, tpu_name, tpu_zone,
                                          gcp_project, master, num_tpu_cores,
                                          strategy=None)
    config = runner.RunConfig(output_dir, save_checkpoints_steps=1000,
                              iterations_per_loop=1000, strategy=strategy,
                              precision="float32")
    est = runner.Estimator(
        MyTask(), config,   # or runner.ModelTask(lambda: BertClassifier(...))
        optimizer_fn=lambda: optimization.create_optimizer(lr, steps, warmup),
        init_checkpoint=None, train_batch_size=32, eval_batch_size=8,
        predict_batch_size=8)
    est.train(input_fn, max_steps)        # resumes from output_dir
    est.train_and_evaluate(train_input_fn, eval_input_fn, max_steps,
                           every_n_steps=1000,  # eval_history.jsonl, eval/
                           early_stopping=runner.EarlyStopping(
                               "eval_accuracy", patience=3),
                           keep_best=True)   # output_dir/best/
    results = est.evaluate(input_fn, steps=None)  # metrics + loss + global_step
    for row in est.predict(input_fn): ... # one numpy dict per example
    runner.write_eval_results(path, results)

input_fn(params) -> tf.data.Dataset of feature dicts batched by
params["batch_size"] (the per-replica batch). Scripts get the original
runner/TPU flags from `runner.define_flags()`.
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
