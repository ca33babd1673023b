"""run_pretraining.py's work: check the inputs, then train and/or evaluate.

Everything a user can get wrong is checked before the model is built and
reported as one `common.InputError` naming the flag or file.
"""

import functools
import os

from absl import logging
import tensorflow as tf

from bert_tf2.common import artifact
from bert_tf2.common import cli
from bert_tf2.common import InputError
import modeling
import optimization
import tokenization
from bert_tf2.pretraining import dynamic_masking
from bert_tf2.pretraining import input_pipeline
from bert_tf2.pretraining import record_check
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2 import runner
from bert_tf2.runner import checkpoints
from bert_tf2.runner import periodic_eval
from bert_tf2.runner import speed_defaults

EVAL_RESULTS = "eval_results.txt"


def pretraining_task(config, f):
  """The runner's task: a `PretrainingModel` of the flags."""
  return runner.ModelTask(functools.partial(
      PretrainingModel, config, use_nsp=not f.no_nsp,
      use_one_hot_embeddings=bool(f.use_tpu)))


def _check_positive(name, value):
  if value is None or value <= 0:
    raise InputError("--%s=%s: must be a positive integer" % (name, value))


def check_flags(flags_values):
  """Validates the flags; returns (bert_config, input_files).

  Raises:
    InputError: naming the flag or file that is wrong.
  """
  f = flags_values
  if not f.do_train and not f.do_eval:
    raise InputError("at least one of --do_train or --do_eval must be True")
  cli.require_file("bert_config_file", f.bert_config_file)
  # From scratch, nothing but the file says what model to build.
  config = modeling.BertConfig.from_json_file(
      f.bert_config_file, require_sizes=not f.init_checkpoint)
  for name in ("max_seq_length", "max_predictions_per_seq",
               "train_batch_size", "eval_batch_size"):
    _check_positive(name, getattr(f, name))
  if f.do_train:
    for name in ("num_train_steps", "save_checkpoints_steps",
                 "iterations_per_loop"):
      _check_positive(name, getattr(f, name))
    if f.num_warmup_steps is None or f.num_warmup_steps < 0:
      raise InputError("--num_warmup_steps=%s: must be >= 0"
                       % f.num_warmup_steps)
    if not 0 < f.learning_rate < float("inf"):  # NaN fails too.
      raise InputError("--learning_rate=%s: must be positive and finite"
                       % f.learning_rate)
  if f.do_eval:
    _check_positive("max_eval_steps", f.max_eval_steps)
  every, stopping, _ = runner.early_stopping_from_flags(f)
  if every and not (f.do_train and f.do_eval):
    raise InputError("--eval_every_n_steps=%d needs --do_train and --do_eval"
                     % every)
  if stopping is not None:
    stopping.check_metric(periodic_eval.metric_names(
        pretraining_task(config, f)))
  modeling.check_sequence_length(config, f.max_seq_length)
  if f.max_predictions_per_seq > f.max_seq_length:
    raise InputError("--max_predictions_per_seq=%d is larger than "
                     "--max_seq_length=%d" % (f.max_predictions_per_seq,
                                              f.max_seq_length))
  if f.vocab_file and f.do_train:  # Recorded in output_dir/model.json.
    cli.require_file("vocab_file", f.vocab_file)
  if f.dynamic_masking:
    if not 0.0 < f.masked_lm_prob <= 1.0:
      raise InputError("--masked_lm_prob=%s: must be in (0, 1]"
                       % f.masked_lm_prob)
    _special_ids(f.vocab_file)
  if f.init_checkpoint:
    modeling.check_config_matches_checkpoint(
        config, f.init_checkpoint, config_file=f.bert_config_file)
  if tf.io.gfile.exists(f.output_dir) and not tf.io.gfile.isdir(f.output_dir):
    raise InputError("--output_dir=%s: is a file, expected a directory"
                     % f.output_dir)
  if f.do_train and tf.io.gfile.isdir(f.output_dir):
    checkpoints.check_batch_shape(f.output_dir, checkpoints.batch_shape(
        f.train_batch_size, f.max_seq_length), f.allow_new_batch_shape)
  input_files = cli.expand_globs("input_file", f.input_file)
  limits = _value_limits(f, config)
  record_check.check_first_records(
      input_files, f.max_seq_length, f.max_predictions_per_seq, limits)
  if f.check_all_records:
    logging.info("Checking every record of %d files", len(input_files))
    record_check.find_bad_record(input_files, f.max_seq_length,
                                 f.max_predictions_per_seq, limits)
  return config, input_files


def _value_limits(f, config):
  return record_check.value_limits(f.max_seq_length, config.vocab_size,
                                   config.type_vocab_size)


def _special_ids(vocab_file):
  """[CLS], [SEP], [MASK] ids from vocab_file (default 101, 102, 103)."""
  if not vocab_file:
    return 101, 102, 103
  cli.require_file("vocab_file", vocab_file)
  vocab = tokenization.load_vocab(vocab_file)
  ids = []
  for token in ("[CLS]", "[SEP]", "[MASK]"):
    if token not in vocab:
      raise InputError("--vocab_file=%s: has no %s token (needed by "
                       "--dynamic_masking)" % (vocab_file, token))
    ids.append(vocab[token])
  return tuple(ids)


def _masker(f, config):
  if not f.dynamic_masking:
    return None
  cls_id, sep_id, mask_id = _special_ids(f.vocab_file)
  return dynamic_masking.DynamicMasker(
      vocab_size=config.vocab_size,
      max_predictions_per_seq=f.max_predictions_per_seq,
      masked_lm_prob=f.masked_lm_prob, cls_id=cls_id, sep_id=sep_id,
      mask_id=mask_id, seed=f.dynamic_masking_seed)


def build_estimator(f, config):
  """Returns the runner.Estimator for the flags."""
  strategy = runner.strategy_from_FLAGS(f)
  run_config = runner.run_config_from_flags(f, strategy)
  if f.do_train:  # --jit_compile unset: chosen for this run, logged.
    speed_defaults.resolve_jit_compile(
        run_config, f.jit_compile, f.precision, f.use_tpu,
        speed_defaults.estimate_train_seconds(
            config, f.max_seq_length, f.max_seq_length,
            f.num_train_steps * f.train_batch_size,
            num_masked=f.max_predictions_per_seq))
  task = pretraining_task(config, f)

  def optimizer_fn():
    return optimization.create_optimizer(
        f.learning_rate, f.num_train_steps, f.num_warmup_steps,
        use_tpu=f.use_tpu, optimizer=f.optimizer)

  return runner.Estimator(
      task, run_config, optimizer_fn=optimizer_fn,
      init_checkpoint=f.init_checkpoint or None,
      train_batch_size=f.train_batch_size,
      eval_batch_size=f.eval_batch_size, max_seq_length=f.max_seq_length)


def run_pretraining(f):
  """Trains and/or evaluates as the flags say; returns the eval results."""
  runner.start_strategy(f)  # Before any other TensorFlow op (multi-worker).
  config, input_files = check_flags(f)
  tf.io.gfile.makedirs(f.output_dir)
  logging.info("*** Input Files (%d) ***", len(input_files))
  for path in input_files[:20]:
    logging.info("  %s", path)
  estimator = build_estimator(f, config)
  masker = _masker(f, config)
  explain = lambda: record_check.explain_input_errors(  # pylint: disable=g-long-lambda
      input_files, f.max_seq_length, f.max_predictions_per_seq,
      _value_limits(f, config))
  result = None
  eval_input_fn = input_pipeline.input_fn_builder(
      input_files, f.max_seq_length, f.max_predictions_per_seq,
      is_training=False, masker=masker)
  if f.do_train:
    logging.info("***** Running training *****")
    logging.info("  Batch size = %d", f.train_batch_size)
    # Every worker of a multi-worker job must read the same order (the
    # runner splits the batches between them).
    deterministic = f.deterministic_input or runner.data_seed(f) is not None
    train_input_fn = input_pipeline.input_fn_builder(
        input_files, f.max_seq_length, f.max_predictions_per_seq,
        is_training=True, masker=masker, deterministic=deterministic,
        seed=12345 if deterministic else None)
    every, stopping, keep_best = runner.early_stopping_from_flags(f)
    with explain():
      if every:  # Evaluation during training (--eval_every_n_steps).
        estimator.train_and_evaluate(
            train_input_fn, eval_input_fn, f.num_train_steps,
            every_n_steps=every, eval_steps=f.max_eval_steps,
            early_stopping=stopping, keep_best=keep_best)
      else:
        estimator.train(train_input_fn, max_steps=f.num_train_steps)
    # Once trained (an output_dir of another model was refused before):
    # the output_dir is an encoder without a head.
    artifact.write(f.output_dir, "pretraining", f.bert_config_file,
                   f.vocab_file or None,
                   preprocessor=dict(max_seq_length=f.max_seq_length),
                   checkpoint=((keep_best and
                                runner.best_checkpoint(f.output_dir)) or
                               estimator.latest_checkpoint()))
  if f.do_eval:
    logging.info("***** Running evaluation *****")
    logging.info("  Batch size = %d", f.eval_batch_size)
    with explain():
      result = estimator.evaluate(eval_input_fn, steps=f.max_eval_steps)
    path = os.path.join(f.output_dir, EVAL_RESULTS)
    runner.write_eval_results(path, result)
    logging.info("***** Eval results *****")
    for key in sorted(result):
      logging.info("  %s = %s", key, result[key])
  return result
