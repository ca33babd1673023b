"""run_squad.py's work: validate flags, train, predict, write the outputs.

`run(o)` takes any object with the run_squad.py flag attributes (absl FLAGS
or a namespace). Outputs in o.output_dir, as the original: train.tf_record,
checkpoints model.ckpt-STEP, eval.tf_record, predictions.json,
nbest_predictions.json and (SQuAD 2.0) null_odds.json.
"""

import os
import random

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.common.cli import require_file
from bert_tf2.common import setup_checks
import optimization
from bert_tf2 import runner
from bert_tf2.runner.checkpoints import refuse_other_model
from bert_tf2.squad import examples as squad_examples
from bert_tf2.squad import features as squad_features
from bert_tf2.squad import postprocess
from bert_tf2.squad import records
from bert_tf2.squad import task as squad_task

# The original shuffles the training examples with this seed.
TRAIN_SHUFFLE_SEED = 12345


def default_options(**overrides):
  """run_squad.py's settings with the defaults `squad.flags` declares."""
  from bert_tf2.finetune.settings import settings_with_defaults  # pylint: disable=g-import-not-at-top
  from bert_tf2.squad import flags as squad_flags  # pylint: disable=g-import-not-at-top
  return settings_with_defaults(squad_flags.define_flags, **overrides)


def validate(o):
  """Checks the flags and files up front; returns (bert_config, tokenizer).

  Raises:
    InputError: naming the flag/file and what is wrong.
  """
  if not o.do_train and not o.do_predict:
    raise InputError("At least one of --do_train or --do_predict must be "
                     "True")
  for flag in ("bert_config_file", "vocab_file", "output_dir"):
    if not getattr(o, flag):
      raise InputError("--%s is required" % flag)
  if o.do_train:
    if not o.train_file:
      raise InputError("--do_train needs --train_file")
    require_file("train_file", o.train_file)
  if o.do_predict:
    if not o.predict_file:
      raise InputError("--do_predict needs --predict_file")
    require_file("predict_file", o.predict_file)
  bert_config, tokenizer = setup_checks.load_config_and_tokenizer(
      o.bert_config_file, o.vocab_file, do_lower_case=o.do_lower_case,
      init_checkpoint=o.init_checkpoint, max_seq_length=o.max_seq_length)
  if o.max_seq_length <= o.max_query_length + 3:
    raise InputError(
        "--max_seq_length=%d must be greater than --max_query_length=%d + 3"
        % (o.max_seq_length, o.max_query_length))
  _refuse_periodic_eval(o)
  for flag in ("doc_stride", "max_query_length", "n_best_size",
               "max_answer_length", "train_batch_size", "predict_batch_size"):
    if getattr(o, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(o, flag)))
  return bert_config, tokenizer


def _refuse_periodic_eval(o):
  """run_squad.py has no dev-set evaluation (no --do_eval: SQuAD is scored
  by evaluate_squad.py on predictions.json), so the shared periodic
  evaluation flags are refused rather than silently ignored."""
  every, stopping, keep_best = runner.early_stopping_from_flags(o)
  for flag, value in (("eval_every_n_steps", every),
                      ("early_stopping_metric", stopping),
                      ("keep_best_checkpoint", keep_best)):
    if value:
      raise InputError("--%s: run_squad.py does not evaluate during "
                       "training (it has no --do_eval; score "
                       "predictions.json with evaluate_squad.py)" % flag)


def _convert(examples, tokenizer, o, is_training, output_fn):
  return squad_features.convert_examples_to_features(
      examples=examples, tokenizer=tokenizer, max_seq_length=o.max_seq_length,
      doc_stride=o.doc_stride, max_query_length=o.max_query_length,
      is_training=is_training, output_fn=output_fn)


def _write_train_records(examples, tokenizer, o, path):
  writer = records.FeatureWriter(path, is_training=True)
  try:
    _convert(examples, tokenizer, o, True, writer.process_feature)
  except BaseException:
    writer.abort()
    raise
  writer.close()
  return writer.num_features


def read_train_examples(o):
  """Reads --train_file and shuffles it as the original (seed 12345)."""
  examples = squad_examples.read_squad_examples(
      o.train_file, is_training=True,
      version_2_with_negative=o.version_2_with_negative)
  if not examples:
    raise InputError("--train_file=%s: no usable training question" %
                     o.train_file)
  random.Random(TRAIN_SHUFFLE_SEED).shuffle(examples)
  return examples


def train(o, estimator, tokenizer, examples, num_train_steps):
  """Writes train.tf_record from `examples` and trains num_train_steps."""
  path = os.path.join(o.output_dir, "train.tf_record")
  num_features = _write_train_records(examples, tokenizer, o, path)
  logging.info("***** Running training *****")
  logging.info("  Num orig examples = %d", len(examples))
  logging.info("  Num split examples = %d", num_features)
  logging.info("  Batch size = %d", o.train_batch_size)
  logging.info("  Num steps = %d", num_train_steps)
  input_fn = records.input_fn_builder(path, o.max_seq_length,
                                      is_training=True, drop_remainder=True,
                                      seed=runner.data_seed(o))
  estimator.train(input_fn, max_steps=num_train_steps)


def predict(o, estimator, tokenizer):
  """Converts --predict_file, predicts and writes the prediction files.

  Returns:
    OrderedDict {qas_id: predicted text}.
  """
  examples = squad_examples.read_squad_examples(
      o.predict_file, is_training=False,
      version_2_with_negative=o.version_2_with_negative)
  path = os.path.join(o.output_dir, "eval.tf_record")
  writer = records.FeatureWriter(path, is_training=False)
  features = []

  def append_feature(feature):
    features.append(feature)
    writer.process_feature(feature)

  try:
    _convert(examples, tokenizer, o, False, append_feature)
  except BaseException:
    writer.abort()
    raise
  writer.close()
  logging.info("***** Running predictions *****")
  logging.info("  Num orig examples = %d", len(examples))
  logging.info("  Num split examples = %d", len(features))
  logging.info("  Batch size = %d", o.predict_batch_size)

  # --trim_padding (opt-in here): logits only up to each batch's bucket
  # length. Real positions get the same logits, but the original's n-best
  # search ranks padding positions too (then drops them), so with trimming
  # an n-best list can hold candidates that padding pushed out.
  input_fn = records.input_fn_builder(
      path, o.max_seq_length, is_training=False, drop_remainder=False,
      trim_padding=bool(o.trim_padding) and not o.use_tpu,
      buckets=padding.bucket_lengths(o.max_seq_length, fine=True))
  results = []
  for result in estimator.predict(input_fn):
    if len(results) % 1000 == 0:
      logging.info("Processing example: %d", len(results))
    results.append(postprocess.RawResult(
        unique_id=int(result["unique_ids"]),
        start_logits=[float(x) for x in result["start_logits"].flat],
        end_logits=[float(x) for x in result["end_logits"].flat]))
  return postprocess.write_predictions(
      examples, features, results, o.n_best_size, o.max_answer_length,
      o.do_lower_case,
      os.path.join(o.output_dir, "predictions.json"),
      os.path.join(o.output_dir, "nbest_predictions.json"),
      os.path.join(o.output_dir, "null_odds.json"),
      version_2_with_negative=o.version_2_with_negative,
      null_score_diff_threshold=o.null_score_diff_threshold,
      verbose_logging=o.verbose_logging)


def run(o, strategy=None, run_config=None):
  """The whole of run_squad.py.

  Args:
    o: flags (attributes as run_squad.py's flags).
    strategy: optional tf.distribute.Strategy (default: from the flags).
    run_config: optional runner.RunConfig (default: from the flags).

  Returns:
    dict with "num_train_steps" and "predictions" (None when not run).
  """
  if strategy is None:  # Before any other TensorFlow op (multi-worker).
    strategy = runner.start_strategy(o)
  bert_config, tokenizer = validate(o)
  tf.io.gfile.makedirs(o.output_dir)
  if run_config is None:
    run_config = runner.run_config_from_flags(o, strategy,
                                              output_dir=o.output_dir)

  task = squad_task.SquadTask(bert_config, use_one_hot_embeddings=o.use_tpu)
  refuse_other_model(o.output_dir, task)
  if o.do_train:  # What bert_tf2.predict.SquadPredictor needs.
    from bert_tf2.predict import assets  # pylint: disable=g-import-not-at-top
    assets.save_assets(
        o.output_dir, "squad", o.bert_config_file, o.vocab_file,
        do_lower_case=o.do_lower_case, max_seq_length=o.max_seq_length,
        doc_stride=o.doc_stride, max_query_length=o.max_query_length,
        n_best_size=o.n_best_size, max_answer_length=o.max_answer_length,
        version_2_with_negative=o.version_2_with_negative,
        null_score_diff_threshold=o.null_score_diff_threshold)
  num_train_steps = num_warmup_steps = train_examples = None
  if o.do_train:
    train_examples = read_train_examples(o)
    num_examples = len(train_examples)
    num_train_steps = int(num_examples / o.train_batch_size *
                          o.num_train_epochs)
    num_warmup_steps = int(num_train_steps * o.warmup_proportion)
    if num_train_steps < 1:
      raise InputError(
          "--train_file=%s: %d usable questions / --train_batch_size=%d x "
          "--num_train_epochs=%g gives no training step" % (
              o.train_file, num_examples, o.train_batch_size,
              o.num_train_epochs))

  def optimizer_fn():
    return optimization.create_optimizer(
        o.learning_rate, num_train_steps, num_warmup_steps, o.use_tpu,
        optimizer=o.optimizer)

  estimator = runner.Estimator(
      task, run_config, optimizer_fn=optimizer_fn if o.do_train else None,
      init_checkpoint=o.init_checkpoint,
      train_batch_size=o.train_batch_size,
      predict_batch_size=o.predict_batch_size)

  out = {"num_train_steps": num_train_steps, "predictions": None}
  if o.do_train:
    train(o, estimator, tokenizer, train_examples, num_train_steps)
    del train_examples
  if o.do_predict:
    out["predictions"] = predict(o, estimator, tokenizer)
  return out
