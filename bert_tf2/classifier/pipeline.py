"""What `run_classifier.py` does, flag values in, files out.

  validate -> examples -> {train,eval,predict}.tf_record -> runner.Estimator
  -> model.ckpt-STEP, eval_results.txt, test_results.tsv [-> SavedModel]

`run(options)` takes any object with the script's flag values as attributes
(absl FLAGS, or an argparse/SimpleNamespace in tests).
"""

import os

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.common import padding
from bert_tf2 import runner
from bert_tf2.classifier import features as features_lib
from bert_tf2.classifier import long_text
from bert_tf2.classifier import multi_label
from bert_tf2.classifier import registry
from bert_tf2.classifier.features import PaddingInputExample
from bert_tf2.classifier.options import generic_options
from bert_tf2.classifier.options import default_options  # pylint: disable=unused-import
from bert_tf2.classifier.options import validate
from bert_tf2.classifier.task import ClassifierTask
from bert_tf2.runner.checkpoints import checkpoint_step
from bert_tf2.runner.checkpoints import refuse_other_model
from bert_tf2.runner.periodic_eval import metric_names as runner_metric_names


def _write_records(examples, label_list, o, tokenizer, path):
  """Writes features of `examples` to `path`; returns the record count."""
  if o.long_text == "sliding_window":
    return long_text.write_windows(examples, label_list, o.max_seq_length,
                                   o.doc_stride, tokenizer, path)
  return features_lib.file_based_convert_examples_to_features(
      examples, label_list, o.max_seq_length, tokenizer, path)


def _input_fn(path, o, is_training, processor):
  return features_lib.file_based_input_fn_builder(
      path, o.max_seq_length, is_training=is_training,
      drop_remainder=is_training or bool(o.use_tpu),
      regression=processor.is_regression,
      with_example_index=o.long_text == "sliding_window",
      trim_padding=trim_padding_enabled(o),
      buckets=padding.bucket_lengths(o.max_seq_length,
                                     fine=not o.jit_compile),
      group_by_length=is_training and trim_padding_enabled(o) and bool(
          getattr(o, "group_by_length", False)),
      seed=runner.data_seed(o))


def trim_padding_enabled(o):
  """--trim_padding (default true); never with --use_tpu (static shapes)."""
  return bool(getattr(o, "trim_padding", True)) and not o.use_tpu


def _pad(examples, batch_size, o):
  """Pads with PaddingInputExample to a whole batch (TPU only, as the
  original; sliding windows never pad: their eval goes through predict)."""
  examples = list(examples)
  if o.use_tpu and o.long_text != "sliding_window":
    while len(examples) % batch_size:
      examples.append(PaddingInputExample())
  return examples


def _document_predictions(estimator, input_fn, num_examples):
  """Runs predict; returns float64 logits [num_examples, num_labels].

  Sliding windows are averaged per document; padding rows are dropped.
  """
  indexes, logits = [], []
  for i, p in enumerate(estimator.predict(input_fn)):
    if "is_real_example" in p and not int(p["is_real_example"]):
      continue
    indexes.append(int(p["example_index"]) if "example_index" in p else i)
    logits.append(np.asarray(p["logits"], dtype=np.float64))
  if not logits:
    return np.zeros([0, 0])
  return long_text.average_window_logits(indexes, np.stack(logits),
                                         num_examples)


def pearson(x, y):
  """Pearson correlation of two 1-D arrays (0.0 if either is constant, as
  the streaming eval_pearson metric)."""
  x = np.asarray(x, np.float64) - np.mean(x)
  y = np.asarray(y, np.float64) - np.mean(y)
  denominator = np.sqrt(np.sum(x * x) * np.sum(y * y))
  return float(np.sum(x * y) / denominator) if denominator else 0.0


def _windowed_eval(estimator, input_fn, examples, label_list, regression):
  """eval_accuracy / eval_loss (regression: eval_loss / eval_pearson) over
  documents (averaged window logits)."""
  logits = _document_predictions(estimator, input_fn, len(examples))
  labels = [features_lib.label_id_for(ex, label_list) for ex in examples]
  if regression:
    predictions, labels = logits[:, 0], np.asarray(labels, np.float64)
    loss = float(np.mean((predictions - labels) ** 2))
    return {"eval_loss": loss, "eval_pearson": pearson(predictions, labels),
            "loss": loss}
  log_probs = np.log(long_text.softmax(logits))
  per_example = -log_probs[np.arange(len(labels)), labels]
  accuracy = float(np.mean(np.argmax(logits, axis=-1) == labels))
  return {"eval_accuracy": accuracy, "eval_loss": float(per_example.mean()),
          "loss": float(per_example.mean())}


def write_test_results(path, rows):
  """One tab-separated line of class probabilities per example, atomically."""
  with atomic_open(path, "w") as f:
    for row in rows:
      f.write("\t".join(str(x) for x in row) + "\n")


def _run_multi_label(o, bert_config, tokenizer):
  """--label_column=a,b,c or --multi_label_delimiter: see multi_label.py."""
  config = runner.run_config_from_flags(
      o, runner.strategy_from_FLAGS(o),
      log_step_count_steps=min(100, o.iterations_per_loop))

  def make_estimator(task, num_train_steps):
    refuse_other_model(o.output_dir, task)
    warmup = int((num_train_steps or 0) * o.warmup_proportion)
    return runner.estimator_from_flags(task, config, o, num_train_steps,
                                       warmup)
  multi_label.run(o, bert_config, tokenizer, generic_options(o),
                  make_estimator, runner.write_eval_results,
                  write_test_results)


def _periodic_eval_options(o, task):
  """(every_n_steps, EarlyStopping, keep_best), checked before any output."""
  every, stopping, keep_best = runner.early_stopping_from_flags(o)
  if every and not (o.do_train and o.do_eval):
    raise InputError("--eval_every_n_steps=%d needs --do_train and --do_eval "
                     "(evaluation runs on the dev set)" % every)
  if every and o.long_text == "sliding_window":
    raise InputError("--eval_every_n_steps is not supported with "
                     "--long_text=sliding_window (document-level evaluation)")
  if stopping is not None:
    stopping.check_metric(runner_metric_names(task))
  return every, stopping, keep_best


def run(o):
  """Runs training / eval / predict / export as the flags in `o` say."""
  runner.start_strategy(o)  # Before any other TensorFlow op (multi-worker).
  bert_config, tokenizer = validate(o)
  from bert_tf2.classifier import export  # pylint: disable=g-import-not-at-top
  export.check_export_flags(o)
  if multi_label.is_multi_label(o):  # (Checks its flags before writing.)
    return _run_multi_label(o, bert_config, tokenizer)
  processor = registry.get_processor(o.task_name, o.data_dir,
                                     generic_options(o))
  label_list = processor.get_labels()
  regression = processor.is_regression
  task = ClassifierTask(bert_config, len(label_list), regression,
                        use_one_hot_embeddings=bool(o.use_tpu),
                        classifier_dropout_prob=o.classifier_dropout_prob)
  eval_every, early_stopping, keep_best = _periodic_eval_options(o, task)
  tf.io.gfile.makedirs(o.output_dir)
  config = runner.run_config_from_flags(
      o, runner.strategy_from_FLAGS(o),
      log_step_count_steps=min(100, o.iterations_per_loop))
  num_train_steps = num_warmup_steps = None
  train_file = os.path.join(o.output_dir, "train.tf_record")
  refuse_other_model(o.output_dir, task)
  if o.do_train:  # What bert_tf2.predict.ClassifierPredictor needs.
    from bert_tf2.predict import assets  # pylint: disable=g-import-not-at-top
    assets.save_assets(
        o.output_dir, "classifier", o.bert_config_file, o.vocab_file,
        do_lower_case=o.do_lower_case, max_seq_length=o.max_seq_length,
        label_list=list(label_list), long_text=o.long_text,
        doc_stride=o.doc_stride)
  if o.do_train:
    train_examples = processor.get_train_examples(o.data_dir)
    if not train_examples:
      raise InputError("--data_dir=%s: the training set is empty" % o.data_dir)
    num_records = _write_records(train_examples, label_list, o, tokenizer,
                                 train_file)
    num_train_steps = int(num_records / o.train_batch_size *
                          o.num_train_epochs)
    num_warmup_steps = int(num_train_steps * o.warmup_proportion)
    logging.info("***** Running training ***** examples=%d records=%d "
                 "batch=%d steps=%d", len(train_examples), num_records,
                 o.train_batch_size, num_train_steps)

  estimator = runner.estimator_from_flags(task, config, o, num_train_steps,
                                          num_warmup_steps)

  if o.do_eval:
    eval_examples = processor.get_dev_examples(o.data_dir)
    eval_file = os.path.join(o.output_dir, "eval.tf_record")
    padded = _pad(eval_examples, o.eval_batch_size, o)
    _write_records(padded, label_list, o, tokenizer, eval_file)
    input_fn = _input_fn(eval_file, o, False, processor)

  if o.do_train and eval_every:
    estimator.train_and_evaluate(
        _input_fn(train_file, o, True, processor), input_fn,
        max_steps=num_train_steps, every_n_steps=eval_every,
        eval_steps=len(padded) // o.eval_batch_size if o.use_tpu else None,
        early_stopping=early_stopping, keep_best=keep_best)
  elif o.do_train:
    estimator.train(_input_fn(train_file, o, True, processor),
                    max_steps=num_train_steps)

  if o.do_eval:
    logging.info("***** Running evaluation ***** examples=%d (%d padding)",
                 len(padded), len(padded) - len(eval_examples))
    if o.long_text == "sliding_window":
      result = _windowed_eval(estimator, input_fn, eval_examples, label_list,
                              regression)
      result["global_step"] = checkpoint_step(estimator.latest_checkpoint())
    else:
      steps = len(padded) // o.eval_batch_size if o.use_tpu else None
      result = estimator.evaluate(input_fn, steps=steps)
    runner.write_eval_results(os.path.join(o.output_dir, "eval_results.txt"),
                              result)
    logging.info("***** Eval results *****")
    for key in sorted(result):
      logging.info("  %s = %s", key, result[key])
    print("".join("%s = %s\n" % (k, result[k]) for k in sorted(result)),
          end="")

  if o.do_predict:
    predict_examples = processor.get_test_examples(o.data_dir)
    predict_file = os.path.join(o.output_dir, "predict.tf_record")
    padded = _pad(predict_examples, o.predict_batch_size, o)
    _write_records(padded, label_list, o, tokenizer, predict_file)
    input_fn = _input_fn(predict_file, o, False, processor)
    if o.long_text == "sliding_window":
      logits = _document_predictions(estimator, input_fn,
                                     len(predict_examples))
      rows = (logits[:, :1] if regression else long_text.softmax(logits))
    else:  # The model's own float32 outputs, as the original wrote them.
      key = "predictions" if regression else "probabilities"
      rows = [np.reshape(p[key], [-1]) for p in estimator.predict(input_fn)
              if int(p.get("is_real_example", 1))]
    if len(rows) != len(predict_examples):
      raise RuntimeError("predicted %d rows for %d examples" % (
          len(rows), len(predict_examples)))
    write_test_results(os.path.join(o.output_dir, "test_results.tsv"),
                       [np.asarray(r, dtype=np.float32) for r in rows])

  if getattr(o, "export_dir", None):
    from bert_tf2.classifier import export  # pylint: disable=g-import-not-at-top
    checkpoint = export.checkpoint_to_export(
        o, estimator.latest_checkpoint(),
        keep_best and runner.best_checkpoint(o.output_dir))
    export.export_saved_model(task, checkpoint, o.export_dir, o.vocab_file,
                              o.do_lower_case, o.max_seq_length, label_list,
                              trim_padding=trim_padding_enabled(o),
                              long_text=o.long_text, doc_stride=o.doc_stride)
    print("SavedModel written to %s" % o.export_dir)
