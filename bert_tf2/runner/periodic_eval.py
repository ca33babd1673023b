"""Evaluation during training: history, early stopping, the best checkpoint.

`Estimator.train_and_evaluate` evaluates every N steps on a checkpoint
saved at that step and hands the results to a `PeriodicEval`, which
appends them to output_dir/eval_history.jsonl (one JSON object a line),
keeps the best evaluation's checkpoint in output_dir/best/ (with
best_metrics.json) and stops after `patience` evaluations without
improvement (output_dir/early_stopping.json). Its state comes from those
files, so a resumed run continues the same patience count and best value.

Example:
  >>> stopping = EarlyStopping("eval_accuracy", patience=2)
  >>> stopping.mode
  'max'
  >>> EarlyStopping("eval_loss").mode
  'min'
  >>> stopping.improved(0.9, best=0.8)
  True
"""

import json
import math
import os

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_path
from bert_tf2.common import atomic_write_text
from bert_tf2.runner import checkpoints
from modeling import literal_paths

HISTORY_FILE = "eval_history.jsonl"
STOP_FILE = "early_stopping.json"
BEST_DIR = "best"
BEST_METRICS_FILE = "best_metrics.json"
MODES = ("max", "min")


class EarlyStopping(object):
  """Which eval metric is "better", and how long to wait for improvement.

  Args:
    metric: name of an evaluation result, e.g. "eval_accuracy", "eval_loss"
      or "loss" (--early_stopping_metric).
    mode: "max" or "min"; None: "min" when the name contains "loss", else
      "max" (--early_stopping_mode).
    patience: stop after this many evaluations in a row without improvement;
      0: never stop (the metric then only picks the best checkpoint).
  """

  def __init__(self, metric, mode=None, patience=0):
    if not metric:
      raise InputError("--early_stopping_metric is required for early "
                       "stopping and --keep_best_checkpoint")
    if mode is None:
      mode = "min" if "loss" in metric else "max"
    if mode not in MODES:
      raise InputError("--early_stopping_mode=%s: expected max or min" % mode)
    if int(patience) < 0:
      raise InputError("--early_stopping_patience=%s: must be >= 0"
                       % patience)
    self.metric = str(metric)
    self.mode = mode
    self.patience = int(patience)

  def improved(self, value, best):
    """True if `value` beats `best` (None: nothing yet; NaN never wins)."""
    if value is None or math.isnan(value):
      return False
    if best is None:
      return True
    return value > best if self.mode == "max" else value < best

  def check_metric(self, available):
    """Raises InputError unless evaluation produces the metric."""
    available = sorted(set(available))
    if self.metric not in available:
      raise InputError(
          "--early_stopping_metric=%s: evaluation does not produce it; it "
          "produces %s" % (self.metric, ", ".join(available)))


def metric_names(task):
  """The result names `Estimator.evaluate` gives for `task` (no global_step).
  """
  return sorted(set(task.create_metrics()) | {"loss"})


def read_history(output_dir):
  """The evaluations recorded in output_dir/eval_history.jsonl, in order."""
  path = os.path.join(output_dir, HISTORY_FILE)
  if not tf.io.gfile.exists(path):
    return []
  with tf.io.gfile.GFile(path) as f:
    return [json.loads(line) for line in f if line.strip()]


def read_stop(output_dir):
  """The early-stopping record of output_dir (dict), or None."""
  path = os.path.join(output_dir, STOP_FILE)
  if not tf.io.gfile.exists(path):
    return None
  with tf.io.gfile.GFile(path) as f:
    return json.loads(f.read())


def _plain(results):
  """JSON-ready {name: float or int} from evaluate()'s numpy results."""
  out = {}
  for key, value in results.items():
    value = value.item() if hasattr(value, "item") else value
    out[key] = int(value) if key == "global_step" else float(value)
  return out


def _dumps(record):
  # NaN is not JSON; null keeps the file readable by any JSON parser.
  return json.dumps({k: (None if isinstance(v, float) and math.isnan(v)
                         else v) for k, v in record.items()}, sort_keys=True)


class PeriodicEval(object):
  """The bookkeeping after each periodic evaluation of a training run.

  Args:
    output_dir: the run's output directory.
    every_n_steps: evaluate every this many global steps (> 0).
    early_stopping: an `EarlyStopping`, or None (history only).
    keep_best: copy the best evaluation's checkpoint into output_dir/best/
      (needs `early_stopping` for the metric).
    enabled: False on workers that must not write (not the chief).
  """

  def __init__(self, output_dir, every_n_steps, early_stopping=None,
               keep_best=False, enabled=True):
    if int(every_n_steps) < 1:
      raise InputError("--eval_every_n_steps=%s: must be >= 1"
                       % every_n_steps)
    if keep_best and early_stopping is None:
      raise InputError("--keep_best_checkpoint needs --early_stopping_metric "
                       "(the metric that defines the best checkpoint)")
    self.output_dir = output_dir
    self.every_n_steps = int(every_n_steps)
    self.early_stopping = early_stopping
    self.keep_best = bool(keep_best)
    self.enabled = enabled
    self.history = read_history(output_dir)

  def best(self):
    """(step, value) of the best recorded evaluation, or (None, None)."""
    best_step, best_value = None, None
    for record in self.history:
      value = record.get(self.early_stopping.metric)
      if self.early_stopping.improved(value, best_value):
        best_step, best_value = record["global_step"], value
    return best_step, best_value

  def after_evaluation(self, results, checkpoint):
    """Records `results` of `checkpoint`; returns True to stop training."""
    record = _plain(results)
    step = record["global_step"]
    stopping = self.early_stopping
    if stopping is not None:
      stopping.check_metric(k for k in record if k != "global_step")
      _, best_value = self.best()
    self.history = [r for r in self.history if r["global_step"] != step]
    self.history.append(record)
    if not self.enabled:
      return self._should_stop()
    atomic_write_text(os.path.join(self.output_dir, HISTORY_FILE),
                      "".join(_dumps(r) + "\n" for r in self.history))
    if stopping is None:
      return False
    value = record[stopping.metric]
    if stopping.improved(value, best_value):
      logging.info("New best %s = %s at global_step %d", stopping.metric,
                   value, step)
      if self.keep_best and checkpoint:
        self._keep(checkpoint, record)
    if self._should_stop():
      best_step, best_value = self.best()
      reason = ("%s did not improve for %d evaluations (best %s at "
                "global_step %d)" % (stopping.metric, stopping.patience,
                                     best_value, best_step))
      logging.info("Early stopping at global_step %d: %s", step, reason)
      atomic_write_text(os.path.join(self.output_dir, STOP_FILE), _dumps({
          "global_step": step, "metric": stopping.metric,
          "best_global_step": best_step, "best_value": best_value,
          "patience": stopping.patience}) + "\n")
      return True
    return False

  def _should_stop(self):
    stopping = self.early_stopping
    if not (stopping and stopping.patience):
      return False
    step, _ = self.best()
    since_best = sum(1 for r in self.history
                     if step is None or r["global_step"] > step)
    return since_best >= stopping.patience

  def _keep(self, checkpoint, record):
    """Copies `checkpoint` into output_dir/best/ atomically."""
    best_dir = os.path.join(self.output_dir, BEST_DIR)
    tf.io.gfile.makedirs(best_dir)
    name = os.path.basename(checkpoint)
    old = [p for p in tf.io.gfile.listdir(best_dir)
           if p.startswith("model.ckpt-") and not p.startswith(name + ".")]
    # Data files first, the index last: a checkpoint counts as complete
    # once its index exists (runner.checkpoints.latest_checkpoint).
    sources = sorted(literal_paths.checkpoint_files(checkpoint),
                     key=lambda p: p.endswith(".index"))
    for source in sources:
      target = os.path.join(best_dir, os.path.basename(source))
      with atomic_path(target) as tmp:
        tf.io.gfile.copy(source, tmp, overwrite=True)
    atomic_write_text(os.path.join(best_dir, "checkpoint"),
                      'model_checkpoint_path: "%s"\n'
                      'all_model_checkpoint_paths: "%s"\n' % (name, name))
    atomic_write_text(os.path.join(best_dir, BEST_METRICS_FILE),
                      _dumps(record) + "\n")
    for stale in old:
      tf.io.gfile.remove(os.path.join(best_dir, stale))
    logging.info("Kept %s as the best checkpoint in %s", name, best_dir)


def best_checkpoint(output_dir):
  """The checkpoint prefix kept in output_dir/best/, or None."""
  return checkpoints.latest_checkpoint(os.path.join(output_dir, BEST_DIR))
