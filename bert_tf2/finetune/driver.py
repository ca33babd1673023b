"""The fine-tuning lifecycle, once for every task: `run(job)`.

  strategy -> settings read once (the job's `prepare`, then `read_plan`)
  -> checks -> output_dir, assets, model.json -> train.tf_record ->
  Estimator -> eval.tf_record -> train (with periodic evaluation: early
  stopping, best checkpoint) -> evaluate -> predict and export, both from
  the best checkpoint with --keep_best_checkpoint (else the latest), the
  one model.json names.

Every check comes before the first write. A job (finetune/job.py)
supplies the task-specific parts; see docs/finetuning.md.
"""

import dataclasses
import math
import os

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_write_text
from bert_tf2.common import artifact
from bert_tf2.common import named_files
from bert_tf2.common import saved_model
from bert_tf2.common import serving
from bert_tf2 import runner
from bert_tf2.finetune import checks
from bert_tf2.finetune import recorded_flags
from bert_tf2.finetune import records
from bert_tf2.runner import checkpoints
from bert_tf2.runner import estimator as estimator_lib
from bert_tf2.runner import precision as precision_lib
from bert_tf2.runner import speed_defaults

@dataclasses.dataclass(frozen=True)
class Plan(object):
  """What the lifecycle takes from the settings (`read_plan`)."""
  do_train: bool
  do_predict: bool
  output_dir: str
  export_dir: str
  init_checkpoint: str
  bert_config_file: str
  vocab_file: str
  train_batch_size: int
  predict_batch_size: int
  max_seq_length: int
  num_train_epochs: float
  warmup_proportion: float
  precision: str
  use_tpu: bool
  jit_compile: object  # The flag: True, False or None (chosen per run).
  allow_new_batch_shape: bool
  flags: dict  # What model.json records (`recorded_flags.recordable`).
  finished: object  # `recorded_flags.finished_run`.
  every: int  # --eval_every_n_steps, 0: no periodic evaluation.
  stopping: object  # runner.EarlyStopping or None.
  keep_best: bool
  config: object  # The runner.RunConfig.
  estimator: dict  # `runner.estimator_options`.


def read_plan(s, strategy):
  """The `Plan` of settings `s`, the strategy started for them.

  Raises:
    InputError: inconsistent periodic-evaluation flags
      (`runner.early_stopping_from_flags`), a bad run config.
  """
  own = dict(
      do_train=bool(s.do_train), do_predict=bool(s.do_predict),
      output_dir=s.output_dir, export_dir=s.export_dir,
      init_checkpoint=s.init_checkpoint,
      bert_config_file=s.bert_config_file,
      vocab_file=getattr(s, "vocab_file", None),
      train_batch_size=s.train_batch_size,
      predict_batch_size=s.predict_batch_size,
      max_seq_length=s.max_seq_length, num_train_epochs=s.num_train_epochs,
      warmup_proportion=s.warmup_proportion, precision=s.precision,
      use_tpu=bool(s.use_tpu), jit_compile=s.jit_compile,
      allow_new_batch_shape=bool(s.allow_new_batch_shape))
  recorded = dict(flags=recorded_flags.recordable(s),
                  finished=recorded_flags.finished_run(s))
  every, stopping, keep_best = runner.early_stopping_from_flags(s)
  return Plan(every=every, stopping=stopping, keep_best=keep_best,
              config=runner.run_config_from_flags(s, strategy),
              estimator=runner.estimator_options(s), **own, **recorded)


def check_export_flags(o):
  """Refuses a --export_dir that cannot be written, before any output.

  Raises:
    InputError: --export_dir exists and is not a SavedModel, or nothing
      would be exported (no --do_train, no checkpoint in --output_dir and
      no --init_checkpoint).
  """
  if not o.export_dir:
    return
  saved_model.check_export_dir(o.export_dir)
  if (not o.do_train and not o.init_checkpoint and
      not (tf.io.gfile.isdir(o.output_dir) and
           checkpoints.latest_checkpoint(o.output_dir))):
    raise InputError("--export_dir=%s: no checkpoint to export in "
                     "--output_dir=%s (and no --init_checkpoint)"
                     % (o.export_dir, o.output_dir))


def checkpoint_to_export(o, latest, best=None):
  """The checkpoint --export_dir exports: `best`, else `latest`, else
  --init_checkpoint.

  Raises:
    InputError: there is none of them.
  """
  checkpoint = best or latest or o.init_checkpoint
  if not checkpoint:
    raise InputError("--export_dir=%s: no checkpoint to export in "
                     "--output_dir=%s" % (o.export_dir, o.output_dir))
  logging.info("Exporting %s%s as a SavedModel to %s",
               "the best checkpoint " if best else "", checkpoint,
               o.export_dir)
  return checkpoint


class _AtCheckpoint(object):
  """The estimator with `predict` and `evaluate` pinned to one checkpoint,
  which `latest_checkpoint()` names."""

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


def check_periodic_eval(job, task, o, do_eval):
  """Refuses periodic evaluation this run cannot do."""
  if o.every and not (o.do_train and do_eval):
    raise InputError("--eval_every_n_steps=%d needs --do_train and --do_eval "
                     "(evaluation runs on the dev set)" % o.every)
  if o.stopping is not None:
    o.stopping.check_metric(job.metric_names(task))


def check_output_dir_files(o):
  """Refuses checkpoints that resolve outside --output_dir; without
  --do_train, checks its model.json in full."""
  named_files.checkpoints_inside(o.output_dir, o.output_dir)
  if not o.do_train and artifact.exists(o.output_dir):
    artifact.read(o.output_dir)


def write_model_record(o, record):
  """Writes output_dir/model.json (`bert_tf2.common.artifact`) of the job's
  `model_record` and --precision, when training."""
  if not o.do_train or record is None:
    return
  artifact.write(o.output_dir, record["task"], o.bert_config_file,
                 o.vocab_file, preprocessor=record.get("preprocessor"),
                 model=record.get("model"), outputs=record.get("outputs"),
                 precision=o.precision, flags=o.flags)


def print_results(result):
  print("".join("%s = %s\n" % (k, result[k]) for k in sorted(result)),
        end="")


class _Records(object):
  """Writes a split's records and makes its input_fn."""

  def __init__(self, job, o, seed):
    self.job = job
    self.o = o
    self.seed = seed
    # XLA for the model steps: the flag, until chosen for training.
    self.jit_compile = bool(o.jit_compile)
    self.paths = []  # The record files written, for explain_read_errors.

  def write(self, split, batch_size=None, before_input=None):
    """(input_fn, record count, steps) of `split` (steps: TPU eval/predict,
    padded to whole batches); before_input(count) runs before input_fn."""
    o = self.o
    training = split == "train"
    pad_to = batch_size if o.use_tpu and not training else None
    path = os.path.join(o.output_dir, self.job.record_files[split])
    count = self.job.write_records(split, path, pad_to)
    self.paths.append(path)
    if before_input is not None:
      before_input(count)
    options = dict(drop_remainder=training or o.use_tpu,
                   seed=self.seed, shuffle_buffer=self.job.shuffle_buffer)
    options.update(self.job.input_options(training, self.jit_compile))
    input_fn = records.input_fn(path, self.job.record_spec(split),
                                o.max_seq_length, training, **options)
    steps = count // batch_size if pad_to else None
    return input_fn, count, steps


def resolve_jit_compile(job, o, num_train_steps):
  """--jit_compile, chosen for this run's training when unset
  (`runner.speed_defaults`); the run config gets it too."""
  spec = job.record_spec("train")
  tokens = sum(math.prod(feature.shape) for name, feature in spec.items()
               if name.endswith("input_ids"))
  seconds = speed_defaults.estimate_train_seconds(
      job.bert_config, tokens, o.max_seq_length,
      num_train_steps * o.train_batch_size)
  return speed_defaults.resolve_jit_compile(
      o.config, o.jit_compile, o.precision, o.use_tpu, seconds)


def export(job, task, checkpoint, o, record):
  """Writes the job's raw-text SavedModel of `checkpoint` to --export_dir,
  in the run's --precision."""
  with precision_lib.policy_scope(o.precision):
    model = saved_model.restore_model(task, checkpoint)
  preprocessor = job.preprocessor_class.from_record(o.vocab_file, record)
  settings = dict(record.get("model") or {}, **(record.get("outputs") or {}))
  serving.write_saved_model(job.server(model, preprocessor, **settings),
                            o.export_dir, what="--export_dir")


def run(job):
  """Trains / evaluates / predicts / exports `job` as its settings say."""
  s = job.settings
  strategy = runner.start_strategy(s)  # Before any other TensorFlow op.
  seed = runner.data_seed(s)
  job.prepare()
  task = job.build_task()
  record = job.model_record()
  do_eval, eval_batch_size = job.evaluates, job.eval_batch_size
  o = read_plan(s, strategy)
  # Checks, all before the first write.
  recorded_flags.check_model_record(job, o.finished, record)
  check_export_flags(o)
  check_periodic_eval(job, task, o, do_eval)
  estimator_lib.check_batch_sizes(o.config, o.train_batch_size,
                                  eval_batch_size, o.predict_batch_size)
  tf.io.gfile.makedirs(o.output_dir)
  check_output_dir_files(o)
  checkpoints.refuse_other_model(o.output_dir, task)
  if o.do_train:
    checkpoints.check_batch_shape(
        o.output_dir, checkpoints.batch_shape(o.train_batch_size,
                                              o.max_seq_length),
        o.allow_new_batch_shape)
  for name, text in sorted(job.assets.items()):
    atomic_write_text(os.path.join(o.output_dir, name), text)
  write_model_record(o, record)
  splits = _Records(job, o, seed)
  num_train_steps = num_warmup_steps = None
  if o.do_train:
    def train_steps(count):  # XLA or not is known once the steps are.
      nonlocal num_train_steps
      epoch = job.examples_per_epoch
      num_train_steps = checks.num_train_steps(
          o, count if epoch is None else epoch,
          os.path.join(o.output_dir, job.record_files["train"]))
      splits.jit_compile = resolve_jit_compile(job, o, num_train_steps)
    train_input_fn, count, _ = splits.write("train", before_input=train_steps)
    num_warmup_steps = int(num_train_steps * o.warmup_proportion)
    logging.info("***** Running training ***** records=%d batch=%d "
                 "steps=%d", count, o.train_batch_size, num_train_steps)
  estimator = runner.make_estimator(
      task, o.config, num_train_steps, num_warmup_steps,
      **dict(o.estimator, eval_batch_size=eval_batch_size))
  if do_eval:
    eval_input_fn, count, eval_steps = splits.write("eval", eval_batch_size)
    logging.info("***** Evaluation records ***** %d", count)
  with records.explain_read_errors(splits.paths):
    if o.do_train and o.every:
      estimator.train_and_evaluate(
          train_input_fn, eval_input_fn, max_steps=num_train_steps,
          every_n_steps=o.every, eval_steps=eval_steps,
          early_stopping=o.stopping, keep_best=o.keep_best,
          eval_fn=None if job.task_metrics else (
              lambda unused_checkpoint: job.evaluate(
                  estimator, eval_input_fn, eval_steps)))
    elif o.do_train:
      estimator.train(train_input_fn, max_steps=num_train_steps)
    if do_eval:
      result = job.evaluate(estimator, eval_input_fn, eval_steps)
      runner.write_eval_results(os.path.join(o.output_dir, job.results_file),
                                result)
      logging.info("***** Eval results *****")
      for key in sorted(result):
        logging.info("  %s = %s", key, result[key])
      print_results(result)
    best = o.keep_best and runner.best_checkpoint(o.output_dir)
    if o.finished is not None and not best:  # The run's recorded answer.
      best = o.finished.checkpoint
    if o.do_train:  # The answer: what --do_predict and --export_dir use.
      answer = best or estimator.latest_checkpoint()
      if answer:
        artifact.set_checkpoint(o.output_dir, answer)
    if o.do_predict:
      predict_input_fn, _, _ = splits.write("predict", o.predict_batch_size)
      # From the checkpoint --export_dir exports (checkpoint_to_export).
      job.predict(_AtCheckpoint(estimator, best) if best else estimator,
                  predict_input_fn)
  if o.export_dir:
    checkpoint = checkpoint_to_export(o, estimator.latest_checkpoint(), best)
    export(job, task, checkpoint, o, record)
    print("SavedModel written to %s" % o.export_dir)
  return estimator
