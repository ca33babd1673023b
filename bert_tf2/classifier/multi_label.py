"""Multi-label classification for run_classifier.py's tsv/csv tasks.

An example may have any number of labels (none included). Two layouts:

  --label_column=toxic,obscene,insult   several 0/1 columns (indexes or
                                        header names); labels = the columns
  --multi_label_delimiter='|'           one label field holding the labels
                                        separated by the delimiter ("" = no
                                        label); labels = --label_list or the
                                        sorted labels of the train file

The model is run_classifier's (pooled output -> output_weights/output_bias,
one logit per label) with sigmoid outputs and binary cross-entropy (mean
over labels and examples). eval_results.txt holds, at threshold 0.5,
per-label precision/recall/F1 (eval_<label>_precision ...), micro-averaged
(over all example-label decisions) and macro-averaged (mean of the per-label
F1) F1, exact-match accuracy and eval_loss; test_results.tsv one line of
per-label probabilities per example.

Like the single-label classifier: --eval_every_n_steps evaluates on the dev
set while training (in-graph eval_loss, eval_micro_precision/recall/f1,
eval_exact_match; early stopping on any of them, --keep_best_checkpoint),
--export_dir writes the raw-string SavedModel (sigmoid probabilities per
label) of the best or latest checkpoint, and training writes the
predictor.json of `bert_tf2.predict.ClassifierPredictor` (multi_label=True).

Example:
  >>> import numpy as np
  >>> m = multi_label_metrics(np.array([[1, 0], [1, 1]]),
  ...                         np.array([[.9, .8], [.2, .7]]), ["a", "b"])
  >>> m["eval_a_recall"], m["eval_b_precision"], m["eval_micro_f1"]
  (0.5, 0.5, 0.6666666666666666)
"""

import os

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_path
from bert_tf2.classifier import features as features_lib
from bert_tf2.classifier.generic import GenericProcessor
from bert_tf2.classifier.processors import InputExample
from bert_tf2.classifier.task import ClassifierTask


def is_multi_label(o):
  """True when the flags ask for multi-label classification."""
  return bool(getattr(o, "multi_label_delimiter", None)) or (
      "," in str(getattr(o, "label_column", "") or ""))


class MultiLabelProcessor(GenericProcessor):
  """GenericProcessor whose example labels are tuples of label names."""

  def __init__(self, data_dir, label_column="0", multi_label_delimiter=None,
               **kwargs):
    self.label_columns = [c.strip() for c in str(label_column).split(",")
                          if c.strip()]
    self.multi_label_delimiter = multi_label_delimiter
    if multi_label_delimiter and len(self.label_columns) != 1:
      raise InputError("--multi_label_delimiter needs one --label_column, "
                       "got %s" % label_column)
    super().__init__(data_dir, label_column=self.label_columns[0], **kwargs)
    self._column_names = None

  def _label_indexes(self, header, path):
    return [self._resolve(c, header, path, "label_column")
            for c in self.label_columns]

  def get_labels(self):
    if self.label_list is not None:
      return list(self.label_list)
    if not self.multi_label_delimiter:
      self._create_examples(self.data_dir, "train", check_labels=False)
      self.label_list = list(self._column_names)
    else:
      labels = set()
      for ex in self._create_examples(self.data_dir, "train",
                                      check_labels=False):
        labels.update(ex.label)
      if not labels:
        raise InputError("%s: no example has a label" % os.path.join(
            self.data_dir, self.files["train"]))
      self.label_list = sorted(labels)
    return list(self.label_list)

  def _create_examples(self, data_dir, set_type, check_labels=True):
    path = os.path.join(data_dir, self.files[set_type])
    rows = self._rows(data_dir, self.files[set_type], self.delimiter,
                      self.quotechar)
    header = None
    if self.has_header and rows:
      header, rows = rows[0].fields, rows[1:]
    a = self._resolve(self.text_a_column, header, path, "text_a_column")
    b = (self._resolve(self.text_b_column, header, path, "text_b_column")
         if self.text_b_column is not None else None)
    try:
      label_indexes = self._label_indexes(header, path)
    except InputError:
      if set_type != "test":
        raise
      label_indexes = None  # An unlabelled test file with a header.
    if label_indexes is not None:
      self._column_names = [header[i] if header else "label_%d" % i
                            for i in label_indexes]
    known = set(self.get_labels()) if check_labels else None
    examples = []
    for i, row in enumerate(rows):
      text_a = row.get(a, "text_a")
      if not text_a.strip():
        raise InputError("%s: text_a (column %d) is empty" % (row.where(), a))
      text_b = row.get(b, "text_b") if b is not None else None
      unlabelled = label_indexes is None or (
          set_type == "test" and len(row.fields) <= max(label_indexes))
      labels = () if unlabelled else self._labels(row, label_indexes)
      if known is not None:
        unknown = [x for x in labels if x not in known]
        if unknown:
          raise InputError("%s: unknown label %r; the labels are %s" %
                           (row.where(), unknown[0], sorted(known)))
      examples.append(InputExample("%s-%d" % (set_type, i), text_a, text_b,
                                   labels, source=row.where()))
    return examples

  def _labels(self, row, label_indexes):
    if self.multi_label_delimiter:
      field = row.get(label_indexes[0], "the label field").strip()
      return tuple(x.strip() for x in field.split(self.multi_label_delimiter)
                   if x.strip())
    labels = []
    for name, index in zip(self._column_names, label_indexes):
      value = row.get(index, "label column %s" % name).strip()
      if value not in ("0", "1"):
        raise InputError("%s: label column %s is %r, expected 0 or 1" %
                         (row.where(), name, value))
      if value == "1":
        labels.append(name)
    return tuple(labels)


def write_records(examples, label_list, max_seq_length, tokenizer, path):
  """TFRecords with label_ids = float multi-hot [num_labels]."""
  index = {name: i for i, name in enumerate(label_list)}
  with atomic_path(path) as tmp, tf.io.TFRecordWriter(tmp) as writer:
    for i, ex in enumerate(examples):
      stand_in = InputExample(ex.guid, ex.text_a, ex.text_b, label_list[0])
      f = features_lib.convert_single_example(i, stand_in, label_list,
                                              max_seq_length, tokenizer)
      hot = [0.0] * len(label_list)
      for name in ex.label:
        hot[index[name]] = 1.0
      ints = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(
          value=list(v)))
      feature = {"input_ids": ints(f.input_ids),
                 "input_mask": ints(f.input_mask),
                 "segment_ids": ints(f.segment_ids),
                 "label_ids": tf.train.Feature(
                     float_list=tf.train.FloatList(value=hot))}
      writer.write(tf.train.Example(features=tf.train.Features(
          feature=feature)).SerializeToString())
  return len(examples)


def input_fn_builder(path, seq_length, num_labels, is_training,
                     drop_remainder):
  spec = {name: tf.io.FixedLenFeature([seq_length], tf.int64)
          for name in ("input_ids", "input_mask", "segment_ids")}
  spec["label_ids"] = tf.io.FixedLenFeature([num_labels], tf.float32)

  def decode(record):
    ex = tf.io.parse_single_example(record, spec)
    return {k: tf.cast(v, tf.int32) if v.dtype == tf.int64 else v
            for k, v in ex.items()}

  def input_fn(params):
    d = tf.data.TFRecordDataset(path)
    if is_training:
      d = d.repeat().shuffle(buffer_size=100)
    d = d.map(decode, num_parallel_calls=tf.data.AUTOTUNE)
    return d.batch(params["batch_size"], drop_remainder=drop_remainder)
  return input_fn


class MultiLabelTask(ClassifierTask):
  """Sigmoid outputs and binary cross-entropy on the classifier's logits."""

  def compute_loss(self, model, features, training):
    logits = model(features, training=training)
    labels = tf.cast(features["label_ids"], tf.float32)
    per_label = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels,
                                                        logits=logits)
    per_example_loss = tf.reduce_mean(per_label, axis=-1)
    return tf.reduce_mean(per_example_loss), {
        "logits": logits, "probabilities": tf.sigmoid(logits),
        "per_example_loss": per_example_loss}

  def create_metrics(self):
    """In-graph eval metrics (periodic evaluation, early stopping).

    eval_loss; at threshold 0.5 (a probability above 0.5) micro-averaged
    precision, recall and F1 over all example-label decisions and the
    exact-match accuracy. The final eval_results.txt computes these (and
    per-label ones) with `multi_label_metrics` from the predictions.
    """
    import keras  # pylint: disable=g-import-not-at-top
    return {
        "eval_loss": keras.metrics.Mean(name="eval_loss"),
        "eval_exact_match": keras.metrics.Mean(name="eval_exact_match"),
        "eval_micro_precision": keras.metrics.Precision(
            thresholds=0.5, name="eval_micro_precision"),
        "eval_micro_recall": keras.metrics.Recall(
            thresholds=0.5, name="eval_micro_recall"),
        "eval_micro_f1": keras.metrics.F1Score(
            average="micro", threshold=0.5, name="eval_micro_f1")}

  def update_metrics(self, metrics, features, outputs):
    labels = tf.cast(features["label_ids"], tf.float32)
    probabilities = outputs["probabilities"]
    metrics["eval_loss"].update_state(outputs["per_example_loss"])
    metrics["eval_exact_match"].update_state(tf.cast(tf.reduce_all(
        tf.equal(labels > 0.5, probabilities > 0.5), axis=-1), tf.float32))
    for name in ("eval_micro_precision", "eval_micro_recall",
                 "eval_micro_f1"):
      metrics[name].update_state(labels, probabilities)

  def predict_outputs(self, model, features):
    logits = model(features, training=False)
    return {"logits": logits, "probabilities": tf.sigmoid(logits)}


def _prf(tp, fp, fn):
  p = tp / (tp + fp) if tp + fp else 0.0
  r = tp / (tp + fn) if tp + fn else 0.0
  return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def multi_label_metrics(labels, probabilities, label_names, threshold=0.5,
                        prefix="eval_"):
  """Per-label P/R/F1, micro and macro F1, exact match (dict of floats).

  Args:
    labels: 0/1 array [num_examples, num_labels].
    probabilities: float array [num_examples, num_labels].
    label_names: list of str.
    threshold: a label is predicted when its probability >= threshold.
  """
  y = np.asarray(labels) > 0.5
  pred = np.asarray(probabilities) >= threshold
  out = {}
  f1s = []
  for j, name in enumerate(label_names):
    tp = int(np.sum(y[:, j] & pred[:, j]))
    fp = int(np.sum(~y[:, j] & pred[:, j]))
    fn = int(np.sum(y[:, j] & ~pred[:, j]))
    p, r, f = _prf(tp, fp, fn)
    out.update({prefix + name + "_precision": p, prefix + name + "_recall": r,
                prefix + name + "_f1": f, prefix + name + "_support":
                int(np.sum(y[:, j]))})
    f1s.append(f)
  p, r, f = _prf(int(np.sum(y & pred)), int(np.sum(~y & pred)),
                 int(np.sum(y & ~pred)))
  out.update({prefix + "micro_precision": p, prefix + "micro_recall": r,
              prefix + "micro_f1": f,
              prefix + "macro_f1": float(np.mean(f1s)) if f1s else 0.0,
              prefix + "exact_match": float(np.mean(np.all(y == pred,
                                                           axis=1)))
              if len(y) else 0.0})
  return out


def run(o, bert_config, tokenizer, processor_options, make_estimator,
        write_results, write_rows):
  """The multi-label part of classifier.pipeline.run (same outputs)."""
  if o.long_text != "truncate":
    raise InputError("--long_text=%s: multi-label tasks only truncate" %
                     o.long_text)
  if (o.task_name or "").lower() not in ("tsv", "csv"):
    raise InputError("--task_name=%s: multi-label needs --task_name=tsv or "
                     "csv" % o.task_name)
  options = dict(processor_options)
  if o.task_name.lower() == "csv":
    options.setdefault("delimiter", ",")
    options.setdefault("quotechar", '"')
    for split in ("train", "dev", "test"):
      options.setdefault("%s_file" % split, "%s.csv" % split)
  options["multi_label_delimiter"] = getattr(o, "multi_label_delimiter",
                                             None)
  processor = MultiLabelProcessor(o.data_dir, **options)
  label_list = processor.get_labels()
  num = len(label_list)
  task = MultiLabelTask(bert_config, num,
                        use_one_hot_embeddings=bool(o.use_tpu),
                        classifier_dropout_prob=o.classifier_dropout_prob)
  from bert_tf2 import runner  # pylint: disable=g-import-not-at-top
  every, stopping, keep_best = runner.early_stopping_from_flags(o)
  if every and not (o.do_train and o.do_eval):
    raise InputError("--eval_every_n_steps=%d needs --do_train and --do_eval "
                     "(evaluation runs on the dev set)" % every)
  if stopping is not None:
    stopping.check_metric(runner.periodic_eval.metric_names(task))
  tf.io.gfile.makedirs(o.output_dir)
  steps = None
  train_file = os.path.join(o.output_dir, "train.tf_record")
  if o.do_train:  # What bert_tf2.predict.ClassifierPredictor needs.
    from bert_tf2.predict import assets  # pylint: disable=g-import-not-at-top
    assets.save_assets(
        o.output_dir, "classifier", o.bert_config_file, o.vocab_file,
        do_lower_case=o.do_lower_case, max_seq_length=o.max_seq_length,
        label_list=list(label_list), multi_label=True)
  if o.do_train:
    examples = processor.get_train_examples(o.data_dir)
    if not examples:
      raise InputError("--data_dir=%s: the training set is empty" %
                       o.data_dir)
    write_records(examples, label_list, o.max_seq_length, tokenizer,
                  train_file)
    steps = int(len(examples) / o.train_batch_size * o.num_train_epochs)
    logging.info("***** Multi-label training ***** labels=%s steps=%d",
                 label_list, steps)
  estimator = make_estimator(task, steps)
  train_fn = input_fn_builder(train_file, o.max_seq_length, num, True, True)
  if o.do_train and every:
    dev_file = os.path.join(o.output_dir, "eval.tf_record")
    write_records(processor.get_dev_examples(o.data_dir), label_list,
                  o.max_seq_length, tokenizer, dev_file)
    estimator.train_and_evaluate(
        train_fn, input_fn_builder(dev_file, o.max_seq_length, num, False,
                                   False),
        max_steps=steps, every_n_steps=every, early_stopping=stopping,
        keep_best=keep_best)
  elif o.do_train:
    estimator.train(train_fn, max_steps=steps)

  def predict(examples, name):
    path = os.path.join(o.output_dir, name + ".tf_record")
    write_records(examples, label_list, o.max_seq_length, tokenizer, path)
    fn = input_fn_builder(path, o.max_seq_length, num, False, False)
    return np.array([p["probabilities"] for p in estimator.predict(fn)],
                    dtype=np.float64).reshape([-1, num])

  if o.do_eval:
    examples = processor.get_dev_examples(o.data_dir)
    probs = predict(examples, "eval")
    hot = np.array([[name in ex.label for name in label_list]
                    for ex in examples], dtype=np.float64).reshape([-1, num])
    result = multi_label_metrics(hot, probs, label_list)
    eps = 1e-7
    p = np.clip(probs, eps, 1 - eps)
    result["eval_loss"] = float(-np.mean(hot * np.log(p) +
                                         (1 - hot) * np.log(1 - p)))
    from bert_tf2.runner.checkpoints import checkpoint_step  # pylint: disable=g-import-not-at-top
    result["global_step"] = checkpoint_step(estimator.latest_checkpoint())
    write_results(os.path.join(o.output_dir, "eval_results.txt"), result)
    print("".join("%s = %s\n" % (k, result[k]) for k in sorted(result)),
          end="")
  if o.do_predict:
    examples = processor.get_test_examples(o.data_dir)
    probs = predict(examples, "predict")
    write_rows(os.path.join(o.output_dir, "test_results.tsv"),
               [np.asarray(r, dtype=np.float32) for r in probs])
  if getattr(o, "export_dir", None):
    from bert_tf2.classifier import export  # pylint: disable=g-import-not-at-top
    checkpoint = export.checkpoint_to_export(
        o, estimator.latest_checkpoint(),
        keep_best and runner.best_checkpoint(o.output_dir))
    export.export_saved_model(task, checkpoint, o.export_dir, o.vocab_file,
                              o.do_lower_case, o.max_seq_length, label_list,
                              multi_label=True)
    print("SavedModel written to %s" % o.export_dir)
