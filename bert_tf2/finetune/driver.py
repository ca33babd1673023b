"""The fine-tuning lifecycle, once for every task: `run(job)`.

  start the strategy -> job.prepare (checks, no output) -> on a finished
  run, the flags against its model.json (`recorded_flags`) -> export and
  periodic-evaluation checks -> run config and batch-size checks ->
  output_dir, job.save_assets, model.json (job.model_record) ->
  train.tf_record -> Estimator ->
  eval.tf_record -> train (or train with evaluation every
  --eval_every_n_steps: early stopping, best checkpoint) -> evaluate
  (eval_results.txt, the latest checkpoint) -> predict and export, both
  from the best checkpoint with --keep_best_checkpoint (else the latest),
  so test outputs are the exported model's; model.json names that
  checkpoint (`bert_tf2.common.artifact`: the output_dir is the model)

Every check comes before the first write; a record file this run wrote
that is damaged or removed while it is read is named with its first bad
record (`records.explain_read_errors`).

A job (finetune/job.py) supplies the task-specific parts; see
docs/finetuning.md for the task list and how to add one.
"""

import math
import os

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.common import named_files
from bert_tf2.common import saved_model
from bert_tf2 import runner
from bert_tf2.finetune import checks
from bert_tf2.finetune import recorded_flags
from bert_tf2.finetune import records
from bert_tf2.runner import checkpoints
from bert_tf2.runner import estimator as estimator_lib
from bert_tf2.runner import speed_defaults

_SPLITS = ("train", "eval", "predict")


def check_export_flags(s):
  """Refuses a --export_dir that cannot be written, before any output.

  Raises:
    InputError: --export_dir exists and is not a SavedModel, or nothing
      would be exported (no --do_train, no checkpoint in --output_dir and
      no --init_checkpoint).
  """
  if not s.export_dir:
    return
  saved_model.check_export_dir(s.export_dir)
  if (not s.do_train and not s.init_checkpoint and
      not (tf.io.gfile.isdir(s.output_dir) and
           checkpoints.latest_checkpoint(s.output_dir))):
    raise InputError("--export_dir=%s: no checkpoint to export in "
                     "--output_dir=%s (and no --init_checkpoint)"
                     % (s.export_dir, s.output_dir))


def checkpoint_to_export(s, latest, best=None):
  """The checkpoint --export_dir exports (and --do_predict predicts with):
  the best one when training kept one (`best`), else the latest in
  --output_dir (`latest`), else --init_checkpoint.

  Raises:
    InputError: there is none of them.
  """
  checkpoint = best or latest or s.init_checkpoint
  if not checkpoint:
    raise InputError("--export_dir=%s: no checkpoint to export in "
                     "--output_dir=%s" % (s.export_dir, s.output_dir))
  logging.info("Exporting %s%s as a SavedModel to %s",
               "the best checkpoint " if best else "", checkpoint,
               s.export_dir)
  return checkpoint


class _AtCheckpoint(object):
  """The estimator with inference pinned to one checkpoint: `predict` and
  `evaluate` restore it, `latest_checkpoint()` names it (the step the
  jobs report); everything else is the estimator's."""

  def __init__(self, estimator, checkpoint):
    self._estimator = estimator
    self._checkpoint = checkpoint

  def latest_checkpoint(self):
    return self._checkpoint

  def predict(self, input_fn, checkpoint_path=None):
    return self._estimator.predict(input_fn,
                                   checkpoint_path or self._checkpoint)

  def evaluate(self, input_fn, steps=None, checkpoint_path=None, name=None):
    return self._estimator.evaluate(input_fn, steps,
                                    checkpoint_path or self._checkpoint, name)

  def __getattr__(self, name):
    return getattr(self._estimator, name)


def periodic_eval_options(job, task, do_eval):
  """(every_n_steps, EarlyStopping or None, keep_best), checked up front
  (the job's own checks first: they name its flags)."""
  s = job.settings
  every, stopping, keep_best = runner.early_stopping_from_flags(s)
  if every:
    job.check_periodic_eval()
  if every and not (s.do_train and do_eval):
    raise InputError("--eval_every_n_steps=%d needs --do_train and --do_eval "
                     "(evaluation runs on the dev set)" % every)
  if stopping is not None:
    stopping.check_metric(job.metric_names(task))
  return every, stopping, keep_best


def check_output_dir_files(s):
  """Before any checkpoint of --output_dir is read: each resolves inside
  it (a symlink to another run's weights is refused in one line); without
  --do_train, a model.json there is checked in full (its files' digests:
  `bert_tf2.common.artifact.read`)."""
  named_files.checkpoints_inside(s.output_dir, s.output_dir)
  if not s.do_train and artifact.exists(s.output_dir):
    artifact.read(s.output_dir)


def write_model_record(job):
  """output_dir/model.json and its copies of config and vocabulary
  (`bert_tf2.common.artifact`), when training: the record of what
  rebuilds the model, the checkpoint named once training is done, and the
  precision its answers are made in (--precision: --do_predict and
  --export_dir run in it, and so does every loader by default)."""
  s = job.settings
  record = job.model_record()
  if not s.do_train or record is None:
    return
  artifact.write(s.output_dir, record["task"], s.bert_config_file,
                 getattr(s, "vocab_file", None),
                 preprocessor=record.get("preprocessor"),
                 model=record.get("model"), outputs=record.get("outputs"),
                 precision=s.precision,
                 flags=recorded_flags.recordable(s))


def print_results(result):
  print("".join("%s = %s\n" % (k, result[k]) for k in sorted(result)),
        end="")


class _Records(object):
  """Writes a split's records and makes its input_fn."""

  def __init__(self, job):
    self.job = job
    s = job.settings
    self.seed = runner.data_seed(s)
    self.paths = []  # The record files written, for explain_read_errors.

  def write(self, split, batch_size=None, before_input=None):
    """(input_fn, record count, steps) of `split`; TPU eval/predict records
    are padded to whole batches and run `steps` batches. before_input(count)
    runs between writing the records and making the input_fn."""
    s = self.job.settings
    training = split == "train"
    pad_to = batch_size if s.use_tpu and not training else None
    path = os.path.join(s.output_dir, self.job.record_files[split])
    count = self.job.write_records(split, path, pad_to)
    self.paths.append(path)
    if before_input is not None:
      before_input(count)
    options = dict(drop_remainder=training or bool(s.use_tpu),
                   seed=self.seed, shuffle_buffer=self.job.shuffle_buffer)
    options.update(self.job.input_options(training))
    input_fn = records.input_fn(path, self.job.record_spec_of(split),
                                s.max_seq_length, training, **options)
    steps = count // batch_size if pad_to else None
    return input_fn, count, steps


def resolve_jit_compile(job, config, num_train_steps):
  """--jit_compile unset: chosen for this run (`runner.speed_defaults`);
  the job's settings and the run config get the choice (the classifier's
  batch lengths depend on it)."""
  s = job.settings
  spec = job.record_spec_of("train")
  tokens = sum(math.prod(feature.shape) for name, feature in spec.items()
               if name.endswith("input_ids"))
  seconds = speed_defaults.estimate_train_seconds(
      job.bert_config, tokens, s.max_seq_length,
      num_train_steps * s.train_batch_size)
  s.jit_compile = speed_defaults.resolve_jit_compile(
      config, s.jit_compile, s.precision, s.use_tpu, seconds)


def run(job):
  """Trains / evaluates / predicts / exports `job` as its settings say."""
  s = job.settings
  runner.start_strategy(s)  # Before any other TensorFlow op (multi-worker).
  job.prepare()
  finished = recorded_flags.finished_run(s)  # A run continued, not trained.
  recorded_flags.check_model_record(job, finished)
  do_eval = job.evaluates()
  if job.exports:
    check_export_flags(s)
  task = job.build_task()
  every, stopping, keep_best = periodic_eval_options(job, task, do_eval)
  # The run config checks the runner's flags: before anything is written.
  config = runner.run_config_from_flags(s, runner.strategy_from_FLAGS(s))
  eval_batch_size = job.eval_batch_size()
  estimator_lib.check_batch_sizes(config, s.train_batch_size,
                                  eval_batch_size, s.predict_batch_size)
  tf.io.gfile.makedirs(s.output_dir)
  check_output_dir_files(s)
  checkpoints.refuse_other_model(s.output_dir, task)
  if s.do_train:
    checkpoints.check_batch_shape(
        s.output_dir, checkpoints.batch_shape(s.train_batch_size,
                                              s.max_seq_length),
        s.allow_new_batch_shape)
  job.save_assets()
  write_model_record(job)
  splits = _Records(job)
  num_train_steps = num_warmup_steps = None
  if s.do_train:
    def train_steps(count):  # XLA or not is known once the steps are.
      nonlocal num_train_steps
      num_train_steps = checks.num_train_steps(
          s, job.epoch_size(count), os.path.join(
              s.output_dir, job.record_files["train"]))
      resolve_jit_compile(job, config, num_train_steps)
    train_input_fn, count, _ = splits.write("train", before_input=train_steps)
    num_warmup_steps = int(num_train_steps * s.warmup_proportion)
    logging.info("***** Running training ***** records=%d batch=%d "
                 "steps=%d", count, s.train_batch_size, num_train_steps)
  estimator = runner.estimator_from_flags(
      task, config, s, num_train_steps, num_warmup_steps,
      eval_batch_size=eval_batch_size)
  if do_eval:
    eval_input_fn, count, eval_steps = splits.write("eval", eval_batch_size)
    logging.info("***** Evaluation records ***** %d", count)
  with records.explain_read_errors(splits.paths):
    if s.do_train and every:
      estimator.train_and_evaluate(
          train_input_fn, eval_input_fn, max_steps=num_train_steps,
          every_n_steps=every, eval_steps=eval_steps,
          early_stopping=stopping, keep_best=keep_best,
          eval_fn=None if job.task_metrics else (
              lambda unused_checkpoint: job.evaluate(
                  estimator, eval_input_fn, eval_steps)))
    elif s.do_train:
      estimator.train(train_input_fn, max_steps=num_train_steps)
    if do_eval:
      result = job.evaluate(estimator, eval_input_fn, eval_steps)
      runner.write_eval_results(os.path.join(s.output_dir, job.results_file),
                                result)
      logging.info("***** Eval results *****")
      for key in sorted(result):
        logging.info("  %s = %s", key, result[key])
      print_results(result)
    best = keep_best and runner.best_checkpoint(s.output_dir)
    if finished is not None and not best:  # The run's recorded answer.
      best = finished.checkpoint
    if s.do_train:  # The answer: what --do_predict and --export_dir use.
      answer = best or estimator.latest_checkpoint()
      if answer:
        artifact.set_checkpoint(s.output_dir, answer)
    if s.do_predict:
      predict_input_fn, _, _ = splits.write("predict", s.predict_batch_size)
      # From the checkpoint --export_dir exports (checkpoint_to_export).
      job.predict(_AtCheckpoint(estimator, best) if best else estimator,
                  predict_input_fn)
  if job.exports and s.export_dir:
    checkpoint = checkpoint_to_export(s, estimator.latest_checkpoint(), best)
    job.export(task, checkpoint)
    print("SavedModel written to %s" % s.export_dir)
  return estimator
