"""run_classifier.py's job: single-label classification and regression.

Outputs: eval_results.txt (the driver), test_results.tsv (one line of class
probabilities, or the regression value, per test example) and a raw-text
SavedModel (--export_dir).
"""

import functools
import os

import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.common import padding
from tokenization import windows
from bert_tf2.classifier import features as features_lib
from bert_tf2.classifier import long_text
from bert_tf2.classifier import registry
from bert_tf2.classifier import serving
from bert_tf2.classifier.features import PaddingInputExample
from bert_tf2.classifier.options import generic_options
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.options import validate
from bert_tf2.finetune import checks
from bert_tf2.finetune.job import Job
from bert_tf2.runner.checkpoints import checkpoint_step
from bert_tf2.runner.task import ModelTask


def evaluated_step(estimator):
  """The global_step an evaluation over documents reports: the latest
  checkpoint's, or 0 before any (the init weights, as TF1's Estimator)."""
  return checkpoint_step(estimator.latest_checkpoint()) or 0


def write_test_results(path, rows):
  """One tab-separated line of class probabilities per example, atomically."""
  with atomic_open(path, "w") as f:
    for row in rows:
      f.write("\t".join(str(x) for x in row) + "\n")


def document_predictions(estimator, input_fn, num_examples):
  """Runs predict on sliding windows (never padded); returns float64 logits
  [num_examples, num_labels], each document's windows averaged."""
  indexes, logits = [], []
  for p in estimator.predict(input_fn):
    indexes.append(int(p["example_index"]))
    logits.append(np.asarray(p["logits"], dtype=np.float64))
  if not logits:
    return np.zeros([0, 0])
  return windows.mean_of_windows(indexes, np.stack(logits), num_examples)


class ClassifierJob(Job):
  """Single-label classification or regression (see the module docstring)."""
  multi_label = False
  server = staticmethod(serving.server)

  def prepare(self):
    s = self.settings
    self.bert_config, self.tokenizer = validate(s)
    self.processor = self.make_processor()
    self.label_list = self.processor.get_labels()
    self.regression = self.processor.is_regression
    if not self.regression and not self.multi_label and (
        len(self.label_list) < 2):
      raise InputError("--task_name=%s: %d label (%s); classification needs "
                       "at least two" % (s.task_name, len(self.label_list),
                                         ", ".join(map(str,
                                                       self.label_list))))
    self.windows = s.long_text == "sliding_window"
    if s.eval_every_n_steps and self.windows:
      raise InputError("--eval_every_n_steps is not supported with "
                       "--long_text=sliding_window (document-level "
                       "evaluation)")
    self.doc_stride = s.doc_stride
    # Never with --use_tpu (static shapes).
    self.trim_padding = bool(s.trim_padding) and not s.use_tpu
    self.group_by_length = bool(s.group_by_length)
    self.examples = {}
    # Every split asked for is read and checked before any output.
    for split, wanted in (("train", s.do_train), ("eval", s.do_eval),
                          ("predict", s.do_predict)):
      if wanted:
        examples = self.read_examples(split)
        if split != "predict":
          self.check_labels(examples)
    if s.do_train:  # Each example is one record, or one or more windows.
      train = self.examples["train"]
      checks.check_train_steps(
          s, "--data_dir=%s" % s.data_dir, len(train),
          exact=(lambda: self.window_count(train)) if self.windows else None)

  def window_count(self, examples):
    """Records --long_text=sliding_window makes of `examples`."""
    return sum(len(long_text.convert_example_to_windows(
        i, example, self.label_list, self.max_seq_length, self.doc_stride,
        self.tokenizer)) for i, example in enumerate(examples))

  def check_labels(self, examples):
    """Raises InputError naming the file and line of an unknown label."""
    for example in examples:
      features_lib.label_id_for(example, self.label_list)

  def make_processor(self):
    s = self.settings
    # options.py's flags before task_name and data_dir: the settings pass
    # this file at most twice (tests/finetune/settings_trace_test.py).
    options = generic_options(s)
    return registry.get_processor(s.task_name, s.data_dir, options)

  def build_task(self):
    s = self.settings
    return ModelTask(functools.partial(
        BertClassifier, self.bert_config,
        1 if self.regression else len(self.label_list),
        use_one_hot_embeddings=bool(s.use_tpu),
        classifier_dropout_prob=s.classifier_dropout_prob,
        **self.head_settings()))

  def head_settings(self):
    """The head's arguments of the model and of model.json."""
    if not self.multi_label:
      return dict(multi_label=False)
    return dict(multi_label=True, threshold=BertClassifier.threshold)

  def model_record(self):
    s = self.settings
    return {"task": "classifier",
            "preprocessor": dict(do_lower_case=bool(s.do_lower_case),
                                 max_seq_length=s.max_seq_length,
                                 long_text=s.long_text,
                                 doc_stride=s.doc_stride),
            "model": dict(num_labels=1 if self.regression
                          else len(self.label_list),
                          **self.head_settings()),
            "outputs": dict(labels=list(self.label_list),
                            regression=bool(self.regression))}

  def record_spec(self, split):
    del split  # One layout for every split.
    return features_lib.record_spec(self.max_seq_length, self.regression,
                                    self.windows)

  def input_options(self, training, jit_compile=False):
    trim = self.trim_padding
    return dict(trim_padding=trim,
                buckets=padding.bucket_lengths(self.max_seq_length,
                                               fine=not jit_compile),
                group_by_length=training and trim and self.group_by_length)

  def read_examples(self, split):
    """The processor's examples of `split` ("train", "eval", "predict")."""
    s = self.settings
    if split in self.examples:
      return self.examples[split]
    if split == "train":
      examples = self.processor.get_train_examples(s.data_dir)
      if not examples:
        raise InputError("--data_dir=%s: the training set is empty" %
                         s.data_dir)
    elif split == "eval":
      examples = self.processor.get_dev_examples(s.data_dir)
    else:
      examples = self.processor.get_test_examples(s.data_dir)
    self.examples[split] = examples
    return examples

  def write_records(self, split, path, pad_to=None):
    examples = list(self.read_examples(split))
    if pad_to and not self.windows:  # As the original (TPU only).
      examples += [PaddingInputExample()] * (-len(examples) % pad_to)
    if self.windows:
      return long_text.write_windows(examples, self.label_list,
                                     self.max_seq_length, self.doc_stride,
                                     self.tokenizer, path)
    return features_lib.file_based_convert_examples_to_features(
        examples, self.label_list, self.max_seq_length, self.tokenizer, path)

  def evaluate(self, estimator, input_fn, steps):
    if not self.windows:
      return estimator.evaluate(input_fn, steps=steps)
    # Over documents: the model's metrics of the averaged window logits.
    examples = self.examples["eval"]
    logits = document_predictions(estimator, input_fn, len(examples))
    labels = np.array([features_lib.label_id_for(ex, self.label_list)
                       for ex in examples],
                      np.float32 if self.regression else np.int32)
    result = estimator.model.logits_eval_results(logits, labels)
    result["loss"] = result["eval_loss"]
    result["global_step"] = evaluated_step(estimator)
    return result

  def predict(self, estimator, input_fn):
    examples = self.examples["predict"]
    if self.windows:  # The model's outputs of the averaged window logits.
      logits = document_predictions(estimator, input_fn, len(examples))
      rows = []
      if len(logits):
        outputs = estimator.model.head_outputs(tf.constant(logits,
                                                           tf.float32))
        rows = (outputs["predictions"][:, None] if self.regression
                else outputs["probabilities"]).numpy()
    else:  # The model's own float32 outputs, as the original wrote them.
      key = "predictions" if self.regression else "probabilities"
      rows = [np.reshape(p[key], [-1]) for p in estimator.predict(input_fn)
              if int(p.get("is_real_example", 1))]
    if len(rows) != len(examples):
      raise RuntimeError("predicted %d rows for %d examples" % (
          len(rows), len(examples)))
    write_test_results(os.path.join(self.output_dir, "test_results.tsv"),
                       [np.asarray(r, dtype=np.float32) for r in rows])

