"""run_ner.py's job: named-entity tagging of CoNLL files.

Evaluation is conlleval's entity precision/recall/F1 over the sentences'
merged tags. Outputs: label_list.txt, eval_results.txt + eval_predictions.txt (dev),
test_predictions.txt (+ test_results.txt when the test file has tags) and
a raw-text SavedModel (--export_dir).
"""

import functools
import os

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.common import cli
from bert_tf2.finetune import checks
from bert_tf2.finetune import driver
from bert_tf2.finetune.driver import print_results
from bert_tf2.finetune.job import Job
from bert_tf2.ner import crf
from bert_tf2.ner import features as features_lib
from bert_tf2.ner import metrics as metrics_lib
from bert_tf2.ner import reader
from bert_tf2.ner import schemes
from bert_tf2.ner import serving
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.ner.preprocessor import NerPreprocessor
from bert_tf2.runner.checkpoints import checkpoint_step
from bert_tf2.runner.results import write_eval_results
from bert_tf2.runner.task import ModelTask

LABELS_FILE = "label_list.txt"


def validate(s):
  """Checks the shared flags, then NER's own; InputError for the first that
  is wrong."""
  checks.check_settings(s, min_seq_length=None)
  if not s.crf_learning_rate_multiplier > 0:
    raise InputError("--crf_learning_rate_multiplier=%s: must be > 0" %
                     s.crf_learning_rate_multiplier)
  if not s.crf:
    for flag, default in (("crf_learning_rate_multiplier", 100.0),
                          ("crf_constraints", "auto")):
      if getattr(s, flag) != default:
        raise InputError("--%s=%s: needs --crf" % (flag, getattr(s, flag)))
  if s.crf_constraints not in ("auto", "BIO", "BIOES", "none"):
    raise InputError("--crf_constraints=%s: expected auto, BIO, BIOES or "
                     "none" % s.crf_constraints)
  cli.require_file("bert_config_file", s.bert_config_file)
  cli.require_file("vocab_file", s.vocab_file)
  if s.max_seq_length < 3:
    raise InputError("--max_seq_length=%d: must be at least 3" %
                     s.max_seq_length)
  if not 1 <= s.doc_stride <= s.max_seq_length - 2:
    raise InputError("--doc_stride=%d: must be in [1, max_seq_length - 2 = "
                     "%d]" % (s.doc_stride, s.max_seq_length - 2))


def crf_allowed(scheme, label_list, train_sentences, train_file):
  """The forbidden-transition masks of --crf_constraints=`scheme` (None:
  none). auto: the training file's scheme; without one, BIOES if the labels
  have E-/S- tags, else none."""
  if scheme == "auto":
    if train_sentences is None and tf.io.gfile.exists(train_file):
      train_sentences = reader.read_conll(train_file)
    if train_sentences:
      scheme = schemes.detect_scheme(x.tags for x in train_sentences)
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


class NerJob(Job):
  """Token tagging with windows (see the module docstring)."""
  shuffle_buffer = 1000
  task_metrics = False  # Entity F1 from the merged predictions.
  preprocessor_class = NerPreprocessor
  server = staticmethod(serving.server)

  def prepare(self):
    s = self.settings
    validate(s)
    self.doc_stride = s.doc_stride
    paths = {flag: os.path.join(s.data_dir, getattr(s, flag))
             for flag in ("train_file", "dev_file", "test_file")}
    train_sentences = None
    if s.do_train:
      train_sentences = reader.read_conll(paths["train_file"])
      if not train_sentences:
        raise InputError("%s: no sentence" % paths["train_file"])
    self.label_list = self._label_list(train_sentences, paths["train_file"])
    self.assets = {LABELS_FILE: "\n".join(self.label_list) + "\n"}
    if train_sentences is not None:
      reader.check_known_tags(train_sentences, self.label_list,
                              paths["train_file"])
      logging.info("tag scheme of %s: %s", paths["train_file"],
                   schemes.detect_scheme(x.tags for x in train_sentences))
    self.sentences = {"train": train_sentences}
    # Read and checked before any output.
    for split, flag, wanted in (("eval", "dev_file", s.do_eval),
                                ("predict", "test_file", s.do_predict)):
      if wanted:
        self.sentences[split] = self._read_split(split, paths[flag])
    self.bert_config, self.tokenizer = checks.config_and_tokenizer(
        s, check_casing=False, required_tokens=("[CLS]", "[SEP]", "[UNK]"))
    if train_sentences is not None:  # Each sentence: one or more windows.
      checks.check_train_steps(
          s, paths["train_file"], len(train_sentences),
          exact=lambda: features_lib.window_count(
              train_sentences, self.max_seq_length, self.doc_stride,
              self.tokenizer))
    self.windows = {}
    self.allowed = None
    if s.crf:
      self.allowed = crf_allowed(s.crf_constraints, self.label_list,
                                 train_sentences, paths["train_file"])

  def _label_list(self, train_sentences, train):
    """--labels_file, else the training file's tags (`train`), else
    label_list.txt of a previous run in output_dir."""
    s = self.settings
    if s.labels_file:
      return reader.read_labels_file(s.labels_file)
    if train_sentences is not None:
      return reader.labels_from_sentences(train_sentences, train)
    saved = os.path.join(self.output_dir, LABELS_FILE)
    if tf.io.gfile.exists(saved):
      return reader.read_labels_file(saved)
    if tf.io.gfile.exists(train):
      return reader.labels_from_sentences(reader.read_conll(train), train)
    raise InputError("no label list: pass --labels_file, or have %s or %s" %
                     (train, saved))

  def _read_split(self, split, path):
    """The sentences of --dev_file ("eval", tags required) or --test_file
    ("predict"), their tags (if any) checked against the label list."""
    sentences = reader.read_conll(path, require_tags=split == "eval")
    if all(t is not None for x in sentences for t in x.tags):
      reader.check_known_tags(sentences, self.label_list, path)
    return sentences

  def build_task(self):
    s = self.settings
    return ModelTask(
        functools.partial(
            BertTokenClassifier, self.bert_config, len(self.label_list),
            use_one_hot_embeddings=bool(s.use_tpu),
            classifier_dropout_prob=s.classifier_dropout_prob, crf=s.crf,
            allowed=self.allowed),
        # The CRF's own learning rate (its variables are crf/...).
        learning_rate_multipliers=(
            {"^crf/": float(s.crf_learning_rate_multiplier)} if s.crf
            else None))

  def metric_names(self, task):
    del task
    return sorted(metrics_lib.flatten(metrics_lib.evaluate(
        [], [], metrics_lib.entity_types(self.label_list))))

  def model_record(self):
    s = self.settings
    return {"task": "ner",
            "preprocessor": dict(do_lower_case=bool(s.do_lower_case),
                                 max_seq_length=s.max_seq_length,
                                 doc_stride=s.doc_stride),
            "model": dict(labels=list(self.label_list), crf=bool(s.crf),
                          allowed=self.allowed)}

  def record_spec(self, split):
    del split  # One layout for every split.
    return features_lib.record_spec(self.max_seq_length)

  def input_options(self, training, jit_compile=False):
    del jit_compile
    return {"drop_remainder": training}

  def write_records(self, split, path, pad_to=None):
    del pad_to  # Windows are merged back from every prediction.
    sentences = self.sentences[split]
    if split != "train":
      self.labelled = all(t is not None for x in sentences for t in x.tags)
    windows = features_lib.write_windows(
        sentences, self.label_list, self.max_seq_length, self.doc_stride,
        self.tokenizer, path)
    self.windows[split] = windows
    logging.info("%s: %d sentences, %d windows", split, len(sentences),
                 len(windows))
    return len(windows)

  def _tags(self, estimator, input_fn, split):
    """One predicted tag list per sentence of `split`."""
    predicted = [np.asarray(p["label_predictions"])
                 for p in estimator.predict(input_fn)]
    merged = features_lib.merge_predictions(
        self.windows[split], predicted,
        [len(x.tokens) for x in self.sentences[split]])
    return [[self.label_list[i] for i in row] for row in merged]

  def _evaluation(self, estimator, sentences, predicted_tags,
                  prefix="eval_"):
    """The flattened metrics (every entity type included) + global_step."""
    result = metrics_lib.flatten(metrics_lib.evaluate(
        [s.tags for s in sentences], predicted_tags,
        metrics_lib.entity_types(self.label_list)), prefix)
    result["global_step"] = checkpoint_step(estimator.latest_checkpoint())
    return result

  def evaluate(self, estimator, input_fn, steps):
    del steps
    tags = self._tags(estimator, input_fn, "eval")
    sentences = self.sentences["eval"]
    write_predictions(os.path.join(self.output_dir, "eval_predictions.txt"),
                      sentences, tags)
    return self._evaluation(estimator, sentences, tags)

  def predict(self, estimator, input_fn):
    out = self.output_dir
    tags = self._tags(estimator, input_fn, "predict")
    sentences = self.sentences["predict"]
    write_predictions(os.path.join(out, "test_predictions.txt"), sentences,
                      tags)
    if self.labelled:
      result = self._evaluation(estimator, sentences, tags, "test_")
      write_eval_results(os.path.join(out, "test_results.txt"), result)
      print_results(result)


def run(settings):
  """run_ner.py's work for its settings: `NerJob` on the driver."""
  return driver.run(NerJob(settings))
