"""Multi-label classification for run_classifier.py's tsv/csv tasks.

An example may have any number of labels (none included): several 0/1
columns (--label_column=toxic,obscene,insult), or one label field holding
them separated by --multi_label_delimiter.

The model is run_classifier's, one logit per label, with sigmoid outputs
and binary cross-entropy (mean over labels and examples). eval_results.txt
holds per-label precision/recall/F1 (eval_<label>_precision ...), micro and
macro F1, exact-match accuracy and eval_loss; test_results.tsv one line of
per-label probabilities per example.

Example:
  >>> import numpy as np
  >>> m = multi_label_metrics(np.array([[1, 0], [1, 1]]),
  ...                         np.array([[1, 1], [0, 1]], bool), ["a", "b"])
  >>> m["eval_a_recall"], m["eval_b_precision"], m["eval_micro_f1"]
  (0.5, 0.5, 0.6666666666666666)
"""

import os

import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.classifier import features as features_lib
from bert_tf2.classifier import registry
from bert_tf2.classifier.job import ClassifierJob
from bert_tf2.classifier.job import evaluated_step
from bert_tf2.classifier.job import write_test_results
from bert_tf2.classifier.options import generic_options
from bert_tf2.finetune import records
from bert_tf2.classifier.generic import GenericProcessor
from bert_tf2.classifier.generic import check_text_a
from bert_tf2.classifier.processors import InputExample


def is_multi_label(s):
  """True when the settings ask for multi-label classification."""
  return bool(s.multi_label_delimiter) or "," in str(s.label_column or "")


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
    indexes = [self._resolve(c, header, path, "label_column")
               for c in self.label_columns]
    self._column_names = [header[i] if header else "label_%d" % i
                          for i in indexes]
    return indexes

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
    rows, a, b, label_indexes = self._table(data_dir, set_type)
    known = set(self.get_labels()) if check_labels else None
    examples = []
    for i, row in enumerate(rows):
      text_a = row.get(a, "text_a")
      check_text_a(text_a, set_type, row.where(), a)
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


def multi_hot_rows(examples, label_list, max_seq_length, tokenizer):
  """Record rows with label_ids = float multi-hot [num_labels]."""
  index = {name: i for i, name in enumerate(label_list)}
  for i, ex in enumerate(examples):
    stand_in = InputExample(ex.guid, ex.text_a, ex.text_b, label_list[0])
    f = features_lib.convert_single_example(i, stand_in, label_list,
                                            max_seq_length, tokenizer)
    hot = [0.0] * len(label_list)
    for name in ex.label:
      hot[index[name]] = 1.0
    yield {"input_ids": f.input_ids, "input_mask": f.input_mask,
           "segment_ids": f.segment_ids, "label_ids": hot}


def _prf(tp, fp, fn):
  p = tp / (tp + fp) if tp + fp else 0.0
  r = tp / (tp + fn) if tp + fn else 0.0
  return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def multi_label_metrics(labels, predicted, label_names, prefix="eval_"):
  """Per-label P/R/F1, micro and macro F1, exact match (dict of floats) of
  0/1 `labels` and bool `predicted`, arrays [num_examples, num_labels]."""
  y = np.asarray(labels).astype(bool)
  pred = np.asarray(predicted, dtype=bool)
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


class MultiLabelJob(ClassifierJob):
  """--label_column=a,b,c or --multi_label_delimiter: sigmoid per label;
  evaluation after training is `multi_label_metrics`."""
  multi_label = True

  def make_processor(self):
    s = self.settings
    if s.long_text != "truncate":
      raise InputError("--long_text=%s: multi-label tasks only truncate" %
                       s.long_text)
    if (s.task_name or "").lower() not in ("tsv", "csv"):
      raise InputError("--task_name=%s: multi-label needs --task_name=tsv "
                       "or csv" % s.task_name)
    options = dict(generic_options(s),
                   multi_label_delimiter=s.multi_label_delimiter)
    return registry.get_processor(s.task_name, s.data_dir, options,
                                  MultiLabelProcessor)

  def check_labels(self, examples):
    del examples  # MultiLabelProcessor refuses unknown labels as it reads.

  def record_spec(self, split):
    del split  # One layout for every split.
    spec = records.sequence_spec(self.max_seq_length, (
        "input_ids", "input_mask", "segment_ids"))
    spec["label_ids"] = tf.io.FixedLenFeature([len(self.label_list)],
                                              tf.float32)
    return spec

  def input_options(self, training, jit_compile=False):
    options = super().input_options(training, jit_compile)
    if len(self.label_list) == self.max_seq_length:
      # label_ids would look like a sequence feature to the trim.
      options.update(trim_padding=False, group_by_length=False)
    options["drop_remainder"] = training  # Never padded, even on TPUs.
    return options

  def write_records(self, split, path, pad_to=None):
    del pad_to  # Predictions keep every example without padding.
    examples = self.read_examples(split)
    return records.write_records(path, multi_hot_rows(
        examples, self.label_list, self.max_seq_length, self.tokenizer))

  def _predictions(self, estimator, input_fn, values="probabilities"):
    """(values, predicted bool), each [examples, labels]; values
    "probabilities" (float64) or "logits" (float32)."""
    outputs = list(estimator.predict(input_fn))
    shape = [-1, len(self.label_list)]
    dtype = np.float64 if values == "probabilities" else np.float32
    return (np.array([p[values] for p in outputs], dtype).reshape(shape),
            np.array([p["predicted"] for p in outputs], bool).reshape(shape))

  def evaluate(self, estimator, input_fn, steps):
    del steps
    examples = self.examples["eval"]
    logits, predicted = self._predictions(estimator, input_fn, "logits")
    hot = np.array([[name in ex.label for name in self.label_list]
                    for ex in examples], dtype=np.float32).reshape(
                        [-1, len(self.label_list)])
    result = multi_label_metrics(hot, predicted, self.label_list)
    result["eval_loss"] = estimator.model.logits_eval_results(
        logits, hot)["eval_loss"]
    result["global_step"] = evaluated_step(estimator)
    return result

  def predict(self, estimator, input_fn):
    probs, _ = self._predictions(estimator, input_fn)
    write_test_results(os.path.join(self.output_dir, "test_results.tsv"),
                       [np.asarray(r, dtype=np.float32) for r in probs])
