"""The `Job`: what one fine-tuning task tells the driver.

The driver (finetune/driver.py) owns the lifecycle; a job answers a few
questions about its task: which model (`build_task`), how its examples
become fixed-length records (`record_spec`, `write_records`), how
predictions become its metrics and output files (`evaluate`, `predict`),
and what serves it (`server`; the driver writes the SavedModel).

A job reads its settings in `prepare` (and `build_task`, `model_record`,
`evaluates`, `eval_batch_size`, which the driver calls right after it);
its later calls work on what those read: settings flow one way, from the
flags into the run (tests/finetune/settings_trace_test.py follows them
through run_ner.py). Everything has a default except
`record_spec` and `write_records` (the task's data); a job that names its
task (`task_name`, the `bert_tf2.tasks` entry's) and task model
(`model_class`) gets `prepare`, `build_task`, `model_record`,
`preprocessor_class` and `server` from them: a task whose model takes
nothing but the config, with a `BertPreprocessor` and outputs of its own
naming, writes its records and nothing else
(tests/finetune/toy_task_test.py is such a task).

A minimal job (a complete classifier on one-column text files, without the
checks and outputs a real task adds):

    class TinyJob(finetune.Job):
      def prepare(self):
        s = self.settings
        self.bert_config, self.tokenizer = (
            setup_checks.load_config_and_tokenizer(s.bert_config_file,
                                                   s.vocab_file))
        self.data_dir, self.max_seq_length = s.data_dir, s.max_seq_length
      def build_task(self):
        return runner.ModelTask(
            lambda: BertClassifier(self.bert_config, num_labels=2))
      def record_spec(self):
        return features.record_spec(self.max_seq_length)
      def write_records(self, split, path, pad_to=None):
        examples = read_examples(self.data_dir, split)
        return features.file_based_convert_examples_to_features(
            examples, ["0", "1"], self.max_seq_length, self.tokenizer, path)

    driver.run(TinyJob(Settings.from_flags(FLAGS)))

Model Garden's `base_task.Task` asks for ten methods (inputs, model, loss,
metrics, train/validation steps, aggregation); here the runner owns the
steps, the driver the lifecycle and the task's Keras model its maths
(loss, metrics, outputs: `runner.ModelTask`), so a job is records plus
output files.
"""

import functools

from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.finetune import checks
from bert_tf2.runner import periodic_eval
from bert_tf2.runner.task import ModelTask


class Job(object):
  """Base class of the fine-tuning jobs; see the module docstring.

  Attributes:
    settings: the script's `finetune.Settings`.
    output_dir, max_seq_length: read from them at construction.
    shuffle_buffer: training shuffle buffer of `records.input_fn`.
    results_file: where `driver.run` writes the --do_eval results.
    task_metrics: `evaluate` gives the task's metrics over the eval records
      (the runner then evaluates them itself during training); False: the
      driver calls `evaluate` for every periodic evaluation.
    record_files: {split: file name in --output_dir} of the records
      (run_squad.py writes its prediction records to eval.tf_record, as
      the original).
    task_name: model.json's "task" (a `bert_tf2.tasks` entry's name), or
      None: `model_record` writes none unless overridden.
    model_class: the task model, built by the default `build_task` as
      `model_class(bert_config, **model_record()["model"])`.
  """
  shuffle_buffer = 100
  task_metrics = True
  results_file = "eval_results.txt"
  record_files = {"train": "train.tf_record", "eval": "eval.tf_record",
                  "predict": "predict.tf_record"}
  task_name = None
  model_class = None

  def __init__(self, settings):
    self.settings = settings
    # What every job's later calls need (records, outputs).
    self.output_dir = settings.output_dir
    self.max_seq_length = settings.max_seq_length

  def prepare(self):
    """Checks flags and files before anything is written (raise
    InputError); loads what the job needs (config, tokenizer, labels).
    Default: the shared checks (`checks.check_settings`, no dropout head)
    and `self.bert_config`, `self.tokenizer` (`checks.config_and_tokenizer`).
    """
    checks.check_settings(self.settings, dropout=False)
    self.bert_config, self.tokenizer = checks.config_and_tokenizer(
        self.settings)

  def build_task(self):
    """The `runner.Task`: `runner.ModelTask` of the task's Keras model,
    which carries the loss, metrics and prediction outputs. Default:
    `model_class(bert_config, **model_record()["model"])`."""
    if self.model_class is None:
      raise NotImplementedError("Job.build_task")
    record = self.model_record() or {}
    return ModelTask(functools.partial(self.model_class, self.bert_config,
                                       **record.get("model", {})))

  def metric_names(self, task):
    """Names `evaluate` produces (checked against
    --early_stopping_metric before any output)."""
    return periodic_eval.metric_names(task)

  def evaluates(self):
    """Whether the run evaluates on the dev set (eval records, periodic
    evaluation, `results_file`): --do_eval where the script has it."""
    s = self.settings
    return "do_eval" in vars(s) and s.do_eval

  def eval_batch_size(self):
    """The global evaluation batch (--eval_batch_size)."""
    return self.settings.eval_batch_size

  def epoch_size(self, count):
    """Training examples per epoch (--num_train_epochs) when `count`
    records were written (default: the records; SQuAD counts questions,
    each one or more window records, as the original)."""
    return count

  def check_periodic_eval(self):
    """Raise InputError if this configuration cannot evaluate during
    training (called only with --eval_every_n_steps)."""

  def save_assets(self):
    """Writes task files of its own into --output_dir (e.g. NER's
    label_list.txt); the model record is `model_record`'s."""

  def model_record(self):
    """What rebuilds this run's model besides config, vocabulary and
    weights: {"task": name, "preprocessor": {...}, "model": {...},
    "outputs": {...}} as `bert_tf2.common.artifact` documents (the
    arguments of the task's text-model builder), or None (no record).
    The driver writes it into --output_dir as model.json when training.
    Default: with `task_name`, the run's casing and length
    (`BertPreprocessor`'s settings) and no model argument; else None."""
    if self.task_name is None:
      return None
    s = self.settings
    return {"task": self.task_name,
            "preprocessor": dict(do_lower_case=bool(s.do_lower_case),
                                 max_seq_length=s.max_seq_length)}

  def record_spec(self):
    """{name: tf.io.FixedLenFeature} of the records."""
    raise NotImplementedError("Job.record_spec")

  def record_spec_of(self, split):
    """The record spec of `split` (default: `record_spec()` for all)."""
    del split
    return self.record_spec()

  def input_options(self, training, jit_compile=False):
    """Extra keyword arguments of `records.input_fn` (trim_padding,
    buckets, group_by_length); jit_compile: the training step is compiled
    with XLA (chosen by the driver once the training steps are known)."""
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

  def preprocessor_class(self):
    """The task's raw-text preprocessor class (a `BertPreprocessor`, the
    default)."""
    return BertPreprocessor

  def text_preprocessor(self, vocab_file=None, record=None):
    """This run's raw-text preprocessor: `preprocessor_class()` on
    `vocab_file` (default --vocab_file) with the settings `record` holds
    (default `model_record()`), the record that
    `bert_tf2.models.load(output_dir)` builds its preprocessor from."""
    return self.preprocessor_class().from_record(
        vocab_file or self.settings.vocab_file,
        record or self.model_record())

  def server(self, model, preprocessor):
    """The SavedModel module (`bert_tf2.common.serving.TextServer`) of the
    trained task model `model` and `preprocessor` (the driver writes it to
    --export_dir, in the run's --precision). Default:
    `serving.text_server` (serving_default(text) -> the model's outputs,
    named by `serving.named_outputs`)."""
    return serving.text_server(preprocessor, model)
