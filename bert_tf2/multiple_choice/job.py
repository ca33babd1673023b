"""run_multiple_choice.py's job on the fine-tuning driver.

test_results.tsv: one line of choice probabilities per test example; when
every test example has a label, also test_results.txt (test_accuracy,
test_loss, global_step). Files left at their defaults and missing: SWAG's
own names are read instead (`SWAG_FILES`).
"""

import functools
import os

import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.finetune import checks
from bert_tf2.finetune import records
from bert_tf2.finetune.driver import print_results
from bert_tf2.finetune.job import Job
from bert_tf2.multiple_choice import features as mc_features
from bert_tf2.multiple_choice import reader
from bert_tf2.multiple_choice import serving
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.runner.checkpoints import checkpoint_step
from bert_tf2.runner.results import write_eval_results
from bert_tf2.runner.task import ModelTask

# {flag: (its default, SWAG's file name)} (see module docstring).
SWAG_FILES = {"train_file": ("train.jsonl", "train.csv"),
              "dev_file": ("dev.jsonl", "val.csv"),
              "test_file": ("test.jsonl", "test.csv")}


def validate(s):
  """Checks flags up front; returns (bert_config, tokenizer)."""
  checks.check_settings(s, min_seq_length=4)
  return checks.config_and_tokenizer(s)


class MultipleChoiceJob(Job):
  """SWAG CSV or JSONL multiple choice (see the module docstring)."""
  preprocessor_class = MultipleChoicePreprocessor
  server = staticmethod(serving.server)

  def prepare(self):
    s = self.settings
    self.bert_config, self.tokenizer = validate(s)
    self.examples = {}
    num_choices = None
    for split, flag, path in checks.split_files(s, SWAG_FILES):
      examples = reader.read_examples(path,
                                      require_labels=split != "predict")
      if not examples:
        raise InputError("--%s=%s: no examples" % (flag, path))
      num_choices = reader.check_num_choices(examples, num_choices)
      self.examples[split] = examples
      if split == "train":
        checks.check_train_steps(s, "--%s=%s" % (flag, path), len(examples))
    self.num_choices = num_choices or 4

  def build_task(self):
    s = self.settings
    return ModelTask(functools.partial(
        BertMultipleChoice, self.bert_config,
        use_one_hot_embeddings=bool(s.use_tpu),
        classifier_dropout_prob=s.classifier_dropout_prob))

  def model_record(self):
    s = self.settings
    return {"task": "multiple_choice",
            "preprocessor": dict(do_lower_case=bool(s.do_lower_case),
                                 max_seq_length=s.max_seq_length),
            "outputs": dict(num_choices=self.num_choices)}

  def record_spec(self, split):
    del split  # One layout for every split.
    shape = [self.num_choices, self.max_seq_length]
    spec = {name: tf.io.FixedLenFeature(shape, tf.int64)
            for name in mc_features.FEATURE_NAMES}
    spec["label_ids"] = tf.io.FixedLenFeature([], tf.int64)
    spec["is_real_example"] = tf.io.FixedLenFeature([], tf.int64)
    return spec

  def write_records(self, split, path, pad_to=None):
    rows = []
    for example in self.examples[split]:
      f = mc_features.convert_example(example, self.max_seq_length,
                                      self.tokenizer)
      rows.append(dict({k: np.ravel(getattr(f, k))
                        for k in mc_features.FEATURE_NAMES},
                       label_ids=f.label_id, is_real_example=1))
    zeros = np.zeros([self.num_choices * self.max_seq_length], np.int64)
    while pad_to and len(rows) % pad_to:
      rows.append(dict(dict.fromkeys(mc_features.FEATURE_NAMES, zeros),
                       label_ids=0, is_real_example=0))
    return records.write_records(path, rows)

  def predict(self, estimator, input_fn):
    rows = [np.asarray(p["probabilities"], np.float32)
            for p in estimator.predict(input_fn)
            if int(p.get("is_real_example", 1))]
    if len(rows) != len(self.examples["predict"]):
      raise RuntimeError("predicted %d rows for %d examples" %
                         (len(rows), len(self.examples["predict"])))
    out = self.output_dir
    with atomic_open(os.path.join(out, "test_results.tsv")) as f:
      for row in rows:
        f.write("\t".join(repr(float(x)) for x in row) + "\n")
    labels = [ex.label for ex in self.examples["predict"]]
    if all(label is not None for label in labels):
      result = test_metrics(np.stack(rows), labels)
      result["global_step"] = checkpoint_step(estimator.latest_checkpoint())
      write_eval_results(os.path.join(out, "test_results.txt"), result)
      print_results(result)


def test_metrics(probabilities, labels):
  """{"test_accuracy", "test_loss"} (mean cross-entropy) of float [n,
  num_choices] choice probabilities against n label indexes.

  >>> test_metrics(np.array([[0.6, 0.4], [0.2, 0.8]]), [0, 0])
  {'test_accuracy': 0.5, 'test_loss': 1.0601317681000455}
  """
  probabilities = np.asarray(probabilities, np.float64)
  labels = np.asarray(labels)
  picked = probabilities[np.arange(len(labels)), labels]
  return {"test_accuracy": float(np.mean(
              np.argmax(probabilities, axis=-1) == labels)),
          "test_loss": float(-np.mean(np.log(picked)))}
