"""What run_multiple_choice.py does, flag values in, files out.

  validate -> examples (reader) -> [n, num_choices, seq] arrays ->
  runner.Estimator -> model.ckpt-STEP, eval_results.txt (eval_accuracy,
  eval_loss), test_results.tsv (one row of choice probabilities per test
  example) [-> raw-string SavedModel]

`run(options)` takes any object with the flag values as attributes.
"""

import os

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2 import runner
from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.common import setup_checks
from bert_tf2.multiple_choice import features as mc_features
from bert_tf2.multiple_choice import reader
from bert_tf2.multiple_choice.task import MultipleChoiceTask
from bert_tf2.runner.checkpoints import refuse_other_model


def validate(o):
  """Checks flags and files up front; returns (bert_config, tokenizer)."""
  if not (o.do_train or o.do_eval or o.do_predict or o.export_dir):
    raise InputError("At least one of --do_train, --do_eval, --do_predict "
                     "or --export_dir must be set")
  for flag in ("data_dir", "output_dir"):
    if not getattr(o, flag):
      raise InputError("--%s is required" % flag)
  if not tf.io.gfile.isdir(o.data_dir):
    raise InputError("--data_dir=%s: not a directory" % o.data_dir)
  if o.max_seq_length < 4:
    raise InputError("--max_seq_length=%d: must be at least 4" %
                     o.max_seq_length)
  if not 0 <= o.classifier_dropout_prob < 1:
    raise InputError("--classifier_dropout_prob=%s: must be in [0, 1)" %
                     o.classifier_dropout_prob)
  for flag in ("train_batch_size", "eval_batch_size", "predict_batch_size"):
    if getattr(o, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(o, flag)))
  if o.export_dir:
    from bert_tf2.predict import serving  # pylint: disable=g-import-not-at-top
    serving.check_export_dir(o.export_dir)
  return setup_checks.load_config_and_tokenizer(
      o.bert_config_file, o.vocab_file, do_lower_case=o.do_lower_case,
      init_checkpoint=o.init_checkpoint, max_seq_length=o.max_seq_length)


def _arrays(o, name, tokenizer, require_labels):
  path = os.path.join(o.data_dir, getattr(o, name))
  if not tf.io.gfile.exists(path):
    raise InputError("--%s=%s: file not found" % (name, path))
  examples = reader.read_examples(path, require_labels=require_labels)
  if not examples:
    raise InputError("--%s=%s: no examples" % (name, path))
  reader.check_num_choices(examples)
  return examples, mc_features.examples_to_arrays(examples, o.max_seq_length,
                                                  tokenizer)


def _input_fn(arrays, is_training, seed=None):
  def input_fn(params):
    d = tf.data.Dataset.from_tensor_slices(arrays)
    if is_training:
      d = d.repeat().shuffle(buffer_size=100, seed=seed)
    return d.batch(params["batch_size"], drop_remainder=is_training)
  return input_fn


def run(o):
  """Runs training / eval / predict / export as the flags in `o` say."""
  runner.start_strategy(o)
  bert_config, tokenizer = validate(o)
  task = MultipleChoiceTask(bert_config, use_one_hot_embeddings=bool(o.use_tpu),
                            classifier_dropout_prob=o.classifier_dropout_prob)
  tf.io.gfile.makedirs(o.output_dir)
  refuse_other_model(o.output_dir, task)
  config = runner.run_config_from_flags(
      o, runner.strategy_from_FLAGS(o),
      log_step_count_steps=min(100, o.iterations_per_loop))
  num_train_steps = num_warmup_steps = None
  if o.do_train:
    train_examples, train_arrays = _arrays(o, "train_file", tokenizer, True)
    num_train_steps = int(len(train_examples) / o.train_batch_size *
                          o.num_train_epochs)
    num_warmup_steps = int(num_train_steps * o.warmup_proportion)
    logging.info("***** Running training ***** examples=%d batch=%d "
                 "steps=%d", len(train_examples), o.train_batch_size,
                 num_train_steps)
  estimator = runner.estimator_from_flags(task, config, o, num_train_steps,
                                          num_warmup_steps)
  if o.do_train:
    estimator.train(_input_fn(train_arrays, True, runner.data_seed(o)),
                    max_steps=num_train_steps)
  if o.do_eval:
    _, eval_arrays = _arrays(o, "dev_file", tokenizer, True)
    result = estimator.evaluate(_input_fn(eval_arrays, False))
    runner.write_eval_results(os.path.join(o.output_dir, "eval_results.txt"),
                              result)
    print("".join("%s = %s\n" % (k, result[k]) for k in sorted(result)),
          end="")
  if o.do_predict:
    test_examples, test_arrays = _arrays(o, "test_file", tokenizer, False)
    rows = [np.asarray(p["probabilities"], np.float32)
            for p in estimator.predict(_input_fn(test_arrays, False))]
    if len(rows) != len(test_examples):
      raise RuntimeError("predicted %d rows for %d examples" %
                         (len(rows), len(test_examples)))
    with atomic_open(os.path.join(o.output_dir, "test_results.tsv")) as f:
      for row in rows:
        f.write("\t".join(repr(float(x)) for x in row) + "\n")
  if o.export_dir:
    from bert_tf2.common import saved_model  # pylint: disable=g-import-not-at-top
    from bert_tf2.multiple_choice import export  # pylint: disable=g-import-not-at-top
    checkpoint = estimator.latest_checkpoint() or o.init_checkpoint
    if not checkpoint:
      raise InputError("--export_dir: nothing to export (no --do_train, no "
                       "checkpoint in --output_dir, no --init_checkpoint)")
    model = saved_model.restore_model(task, checkpoint)
    export.export_model(model, o.vocab_file, o.max_seq_length, o.export_dir,
                        do_lower_case=o.do_lower_case, what="--export_dir")
    print("SavedModel written to %s" % o.export_dir)
