"""What `run_ner.py` does, flag values in, files out.

  validate -> CoNLL sentences -> windows -> {train,eval,predict}.tf_record
  -> runner.Estimator -> model.ckpt-STEP, label_list.txt,
  eval_results.txt + eval_predictions.txt (dev), test_predictions.txt
  (+ test_results.txt when the test file has tags) [-> SavedModel]

Predictions files are CoNLL: `token gold predicted` per line (gold `-`
when the file had no tags), a blank line between sentences, the format
conlleval.pl reads. `run(options)` takes any object with the script's flag
values as attributes (absl FLAGS, or default_options(...) in tests).
"""

import os
import types

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.common import atomic_write_text
from bert_tf2.common import cli
import modeling
from bert_tf2 import runner
import tokenization
from bert_tf2.ner import features as features_lib
from bert_tf2.ner import metrics as metrics_lib
from bert_tf2.ner import reader
from bert_tf2.ner import schemes
from bert_tf2.ner.task import NerTask
from bert_tf2.runner.checkpoints import checkpoint_step
from bert_tf2.runner.checkpoints import refuse_other_model

LABELS_FILE = "label_list.txt"


def default_options(**overrides):
  """The script's flags with their defaults, as a namespace."""
  values = dict(
      data_dir=None, bert_config_file=None, vocab_file=None, output_dir=None,
      init_checkpoint=None, do_lower_case=True, max_seq_length=128,
      do_train=False, do_eval=False, do_predict=False, train_batch_size=32,
      eval_batch_size=8, predict_batch_size=8, learning_rate=5e-5,
      num_train_epochs=3.0, warmup_proportion=0.1,
      save_checkpoints_steps=1000, iterations_per_loop=1000, use_tpu=False,
      tpu_name=None, tpu_zone=None, gcp_project=None, master=None,
      num_tpu_cores=8, strategy=None, precision="float32", jit_compile=False,
      keep_checkpoint_max=5, gradient_accumulation_steps=1,
      optimizer="adamw", skip_consumed_batches=False, export_dir=None,
      doc_stride=64, train_file="train.txt", dev_file="dev.txt",
      test_file="test.txt", labels_file=None, classifier_dropout_prob=0.1,
      crf=False, crf_learning_rate_multiplier=100.0, crf_constraints="auto")
  unknown = set(overrides) - set(values)
  if unknown:
    raise TypeError("unknown options: %s" % sorted(unknown))
  values.update(overrides)
  return types.SimpleNamespace(**values)


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
  if not 0 <= o.classifier_dropout_prob < 1:
    raise InputError("--classifier_dropout_prob=%s: must be in [0, 1)" %
                     o.classifier_dropout_prob)
  if not o.crf_learning_rate_multiplier > 0:
    raise InputError("--crf_learning_rate_multiplier=%s: must be > 0" %
                     o.crf_learning_rate_multiplier)
  if not o.crf and (o.crf_learning_rate_multiplier != 100.0 or
                    o.crf_constraints != "auto"):
    raise InputError("--crf_learning_rate_multiplier/--crf_constraints: "
                     "need --crf")
  if o.crf_constraints not in ("auto", "BIO", "BIOES", "none"):
    raise InputError("--crf_constraints=%s: expected auto, BIO, BIOES or "
                     "none" % o.crf_constraints)
  cli.require_file("bert_config_file", o.bert_config_file)
  cli.require_file("vocab_file", o.vocab_file)
  try:
    bert_config = modeling.BertConfig.from_json_file(o.bert_config_file)
  except InputError:
    raise
  except Exception as e:  # pylint: disable=broad-except
    raise InputError("--bert_config_file=%s: %s" % (o.bert_config_file, e))
  modeling.check_sequence_length(bert_config, o.max_seq_length)
  if o.max_seq_length < 3:
    raise InputError("--max_seq_length=%d: must be at least 3" %
                     o.max_seq_length)
  if not 1 <= o.doc_stride <= o.max_seq_length - 2:
    raise InputError("--doc_stride=%d: must be in [1, max_seq_length - 2 = "
                     "%d]" % (o.doc_stride, o.max_seq_length - 2))
  for flag in ("train_batch_size", "eval_batch_size", "predict_batch_size"):
    if getattr(o, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(o, flag)))
  tokenizer = tokenization.FullTokenizer(vocab_file=o.vocab_file,
                                         do_lower_case=o.do_lower_case)
  if len(tokenizer.vocab) > bert_config.vocab_size:
    raise InputError("--vocab_file=%s has %d tokens but --bert_config_file "
                     "has vocab_size=%d" % (o.vocab_file, len(tokenizer.vocab),
                                            bert_config.vocab_size))
  for token in ("[CLS]", "[SEP]", "[UNK]"):
    if token not in tokenizer.vocab:
      raise InputError("--vocab_file=%s: has no %s token" % (o.vocab_file,
                                                             token))
  if o.init_checkpoint:
    modeling.resolve_checkpoint(o.init_checkpoint)
  return bert_config, tokenizer


def _path(o, name):
  return os.path.join(o.data_dir, getattr(o, name))


def label_list_for(o, train_sentences):
  """--labels_file, else the training file's tags, else label_list.txt of a
  previous run in output_dir."""
  if o.labels_file:
    return reader.read_labels_file(o.labels_file)
  if train_sentences is not None:
    return reader.labels_from_sentences(train_sentences,
                                        _path(o, "train_file"))
  saved = os.path.join(o.output_dir, LABELS_FILE)
  if tf.io.gfile.exists(saved):
    return reader.read_labels_file(saved)
  train = _path(o, "train_file")
  if tf.io.gfile.exists(train):
    return reader.labels_from_sentences(reader.read_conll(train), train)
  raise InputError("no label list: pass --labels_file, or have %s or %s" %
                   (train, saved))


def crf_allowed(o, label_list, train_sentences):
  """The forbidden-transition masks of --crf_constraints (None: none).

  auto reads the scheme of the training file (read here when only
  predicting); without one, BIOES if the labels have E-/S- tags, else none.
  """
  from bert_tf2.ner import crf  # pylint: disable=g-import-not-at-top
  scheme = o.crf_constraints
  if scheme == "auto":
    if train_sentences is None and tf.io.gfile.exists(_path(o, "train_file")):
      train_sentences = reader.read_conll(_path(o, "train_file"))
    if train_sentences:
      scheme = schemes.detect_scheme(s.tags for s in train_sentences)
    elif any(t[:2] in ("E-", "S-") for t in label_list):
      scheme = "BIOES"
    logging.info("--crf_constraints=auto: %s", scheme)
  if scheme not in ("BIO", "BIOES"):
    return None
  return [a.tolist() for a in crf.allowed_transitions(label_list, scheme)]


def write_predictions(path, sentences, predicted_tags):
  """CoNLL `token gold predicted` lines, blank between sentences."""
  with atomic_open(path, "w") as f:
    for s, tags in zip(sentences, predicted_tags):
      for token, gold, pred in zip(s.tokens, s.tags, tags):
        f.write("%s %s %s\n" % (token, gold or "-", pred))
      f.write("\n")


def predict_tags(estimator, o, sentences, label_list, tokenizer, name):
  """Runs the model over `sentences`; returns one tag list per sentence."""
  path = os.path.join(o.output_dir, name + ".tf_record")
  windows = features_lib.write_windows(sentences, label_list,
                                       o.max_seq_length, o.doc_stride,
                                       tokenizer, path)
  logging.info("***** Predicting %s ***** sentences=%d windows=%d", name,
               len(sentences), len(windows))
  input_fn = features_lib.input_fn_builder(path, o.max_seq_length, False,
                                           drop_remainder=False)
  predicted = [np.asarray(p["label_predictions"])
               for p in estimator.predict(input_fn)]
  merged = features_lib.merge_predictions(
      windows, predicted, [len(s.tokens) for s in sentences])
  return [[label_list[i] for i in row] for row in merged]


def evaluation(sentences, predicted_tags, step, prefix="eval_"):
  result = metrics_lib.flatten(metrics_lib.evaluate(
      [s.tags for s in sentences], predicted_tags), prefix)
  result["global_step"] = step
  return result


def run(o):
  """Runs training / eval / predict / export as the flags in `o` say."""
  runner.start_strategy(o)  # Before any other TensorFlow op (multi-worker).
  bert_config, tokenizer = validate(o)
  tf.io.gfile.makedirs(o.output_dir)
  train_sentences = None
  if o.do_train:
    train_sentences = reader.read_conll(_path(o, "train_file"))
    if not train_sentences:
      raise InputError("%s: no sentence" % _path(o, "train_file"))
  label_list = label_list_for(o, train_sentences)
  if train_sentences is not None:
    reader.check_known_tags(train_sentences, label_list,
                            _path(o, "train_file"))
    logging.info("tag scheme of %s: %s", _path(o, "train_file"),
                 schemes.detect_scheme(s.tags for s in train_sentences))
  task = NerTask(bert_config, len(label_list),
                 use_one_hot_embeddings=bool(o.use_tpu),
                 classifier_dropout_prob=o.classifier_dropout_prob,
                 crf=o.crf, allowed=crf_allowed(o, label_list, train_sentences)
                 if o.crf else None)
  refuse_other_model(o.output_dir, task)
  atomic_write_text(os.path.join(o.output_dir, LABELS_FILE),
                    "\n".join(label_list) + "\n")
  config = runner.run_config_from_flags(
      o, runner.strategy_from_FLAGS(o),
      log_step_count_steps=min(100, o.iterations_per_loop))
  num_train_steps = num_warmup_steps = None
  train_file = os.path.join(o.output_dir, "train.tf_record")
  if o.do_train:
    windows = features_lib.write_windows(
        train_sentences, label_list, o.max_seq_length, o.doc_stride,
        tokenizer, train_file)
    num_train_steps = int(len(windows) / o.train_batch_size *
                          o.num_train_epochs)
    num_warmup_steps = int(num_train_steps * o.warmup_proportion)
    logging.info("***** Running training ***** sentences=%d windows=%d "
                 "batch=%d steps=%d", len(train_sentences), len(windows),
                 o.train_batch_size, num_train_steps)

  estimator = runner.estimator_from_flags(
      task, config, o, num_train_steps, num_warmup_steps,
      learning_rate_multipliers={"^crf/": o.crf_learning_rate_multiplier}
      if o.crf else None)
  if o.do_train:
    estimator.train(features_lib.input_fn_builder(
        train_file, o.max_seq_length, True, drop_remainder=True,
        seed=runner.data_seed(o)),
                    max_steps=num_train_steps)

  for enabled, file_flag, name, results, predictions in (
      (o.do_eval, "dev_file", "eval", "eval_results.txt",
       "eval_predictions.txt"),
      (o.do_predict, "test_file", "predict", "test_results.txt",
       "test_predictions.txt")):
    if not enabled:
      continue
    path = _path(o, file_flag)
    sentences = reader.read_conll(path, require_tags=name == "eval")
    labelled = all(t is not None for s in sentences for t in s.tags)
    if labelled:
      reader.check_known_tags(sentences, label_list, path)
    tags = predict_tags(estimator, o, sentences, label_list, tokenizer, name)
    write_predictions(os.path.join(o.output_dir, predictions), sentences,
                      tags)
    if labelled:
      result = evaluation(sentences, tags,
                          checkpoint_step(estimator.latest_checkpoint()),
                          "eval_" if name == "eval" else "test_")
      runner.write_eval_results(os.path.join(o.output_dir, results), result)
      print("".join("%s = %s\n" % (k, result[k]) for k in sorted(result)),
            end="")

  if o.export_dir:
    from bert_tf2.ner import export  # pylint: disable=g-import-not-at-top
    checkpoint = estimator.latest_checkpoint() or o.init_checkpoint
    if not checkpoint:
      raise InputError("--export_dir=%s: no checkpoint to export in "
                       "--output_dir=%s" % (o.export_dir, o.output_dir))
    export.export_saved_model(task, checkpoint, o.export_dir, o.vocab_file,
                              o.do_lower_case, o.max_seq_length, label_list)
    print("SavedModel written to %s" % o.export_dir)
