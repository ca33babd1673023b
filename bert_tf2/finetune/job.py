"""The `Job`: what one fine-tuning task declares to the driver.

The driver (finetune/driver.py) owns the lifecycle. A job reads its
settings once, in `prepare`, and declares there what the run is: its model
(`build_task`, `model_record`), its data (`record_spec`, `write_records`,
`input_options`; `examples_per_epoch`), its evaluation (`evaluates`,
`eval_batch_size`, `evaluate`, `metric_names`) and its outputs (`assets`,
`predict`, `server`). The driver then calls the job only for the task's
own work: write a split's records, turn predictions into metrics and
files, serve the model.

Everything has a default except `record_spec` and `write_records`; a job
that names its `task_name` and `model_class` gets `prepare`, `build_task`
and `model_record` from them (tests/finetune/toy_task_test.py).

A complete example: docs/finetuning.md ("Adding a task").
"""

import functools

from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.finetune import checks
from bert_tf2.runner import periodic_eval
from bert_tf2.runner.task import ModelTask


class Job(object):
  """Base class of the fine-tuning jobs; see the module docstring.

  Declared by the class:
    shuffle_buffer: training shuffle buffer of `records.input_fn`.
    results_file: where `driver.run` writes the --do_eval results.
    task_metrics: `evaluate` gives the task's metrics (the runner computes
      them in periodic evaluation); False: the driver calls `evaluate`.
    record_files: {split: file name in --output_dir} of the records.
    task_name: model.json's "task" (`bert_tf2.tasks`), or None: no record.
    model_class: the task model (the default `build_task`'s).
    preprocessor_class: the task's raw-text preprocessor (--export_dir's
      is its `from_record` of the run's model.json).
    server: the task's `server(model, preprocessor, **settings)`, which
      builds its SavedModel (default `bert_tf2.common.serving.server`);
      settings: model.json's "model" and "outputs".

  Declared by `prepare` (defaults set at construction):
    evaluates: the run evaluates on the dev set (--do_eval).
    eval_batch_size: the global evaluation batch (--eval_batch_size).
    examples_per_epoch: training examples per epoch, or None: the
      training records (SQuAD counts questions, as the original).
    assets: {file name: text} the driver writes into --output_dir.
  """
  shuffle_buffer = 100
  task_metrics = True
  results_file = "eval_results.txt"
  record_files = {"train": "train.tf_record", "eval": "eval.tf_record",
                  "predict": "predict.tf_record"}
  task_name = None
  model_class = None
  preprocessor_class = BertPreprocessor
  server = staticmethod(serving.server)

  def __init__(self, settings):
    self.settings = settings
    # run_squad.py has no --do_eval and --eval_batch_size.
    self.output_dir = settings.output_dir
    self.max_seq_length = settings.max_seq_length
    self.evaluates = bool(getattr(settings, "do_eval", False))
    self.eval_batch_size = getattr(settings, "eval_batch_size", None)
    self.examples_per_epoch = None
    self.assets = {}

  def prepare(self):
    """Checks flags and files before anything is written (raise
    InputError), reads what the job needs and declares the run. Default:
    the shared checks and `self.bert_config`, `self.tokenizer`."""
    checks.check_settings(self.settings, dropout=False)
    self.bert_config, self.tokenizer = checks.config_and_tokenizer(
        self.settings)

  def build_task(self):
    """The `runner.ModelTask` of the task's Keras model. Default:
    `model_class(bert_config, **model_record()["model"])`."""
    if self.model_class is None:
      raise NotImplementedError("Job.build_task")
    record = self.model_record() or {}
    return ModelTask(functools.partial(self.model_class, self.bert_config,
                                       **record.get("model", {})))

  def model_record(self):
    """What rebuilds this run's model besides config, vocabulary and
    weights: {"task": name, "preprocessor": {...}, "model": {...},
    "outputs": {...}} (`bert_tf2.common.artifact`), or None (no record).
    A pure function of the settings and what `prepare` read (the driver
    calls it again with one flag changed to name a conflicting flag).
    Default: with `task_name`, the run's casing and length; else None."""
    if self.task_name is None:
      return None
    s = self.settings
    return {"task": self.task_name,
            "preprocessor": dict(do_lower_case=bool(s.do_lower_case),
                                 max_seq_length=s.max_seq_length)}

  def metric_names(self, task):
    """Names `evaluate` produces (checked against
    --early_stopping_metric before any output)."""
    return periodic_eval.metric_names(task)

  def record_spec(self, split):
    """{name: tf.io.FixedLenFeature} of the records of `split`."""
    raise NotImplementedError("Job.record_spec")

  def input_options(self, training, jit_compile=False):
    """Extra keyword arguments of `records.input_fn` (trim_padding,
    buckets, group_by_length); jit_compile: the training step uses XLA."""
    del training, jit_compile
    return {}

  def write_records(self, split, path, pad_to=None):
    """Writes the records of `split` ("train", "eval" or "predict") to
    `path`; returns their count. pad_to: pad with is_real_example=0
    records to a multiple of this (TPU eval/predict), or None."""
    raise NotImplementedError("Job.write_records")

  def evaluate(self, estimator, input_fn, steps):
    """Results dict of the eval records (default: the task's metrics)."""
    return estimator.evaluate(input_fn, steps=steps)

  def predict(self, estimator, input_fn):
    """Writes the --do_predict outputs."""
    del estimator, input_fn

