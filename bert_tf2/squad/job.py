"""run_squad.py's job: SQuAD 1.1 / 2.0 span prediction on the driver.

Records as the original: train.tf_record and eval.tf_record, one record
per window. --do_predict writes predictions.json, nbest_predictions.json
and (2.0) null_odds.json.

Evaluation during training (--eval_every_n_steps; no --do_eval, as the
original): --predict_file, with its answers, is predicted, decoded as
--do_predict does and scored as evaluate_squad.py does (eval_exact_match,
eval_f1, ...).
"""

import functools
import os
import random

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.common.cli import require_file
from bert_tf2.finetune import checks
from bert_tf2.finetune import driver
from bert_tf2.finetune.job import Job
from bert_tf2.runner.checkpoints import checkpoint_step
from bert_tf2.runner.task import ModelTask
from bert_tf2.squad import evaluate as squad_evaluate
from bert_tf2.squad import examples as squad_examples
from bert_tf2.squad import features as squad_features
from bert_tf2.squad import postprocess
from bert_tf2.squad import records
from bert_tf2.squad import serving
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad.model import SquadModel

# The original shuffles the training examples with this seed.
TRAIN_SHUFFLE_SEED = 12345


def validate(s):
  """Checks the flags and files up front; returns (bert_config, tokenizer).

  Raises:
    InputError: naming the flag/file and what is wrong.
  """
  if not (s.do_train or s.do_predict or s.export_dir):
    raise InputError("At least one of --do_train or --do_predict must be "
                     "True")
  for flag in ("bert_config_file", "vocab_file", "output_dir"):
    if not getattr(s, flag):
      raise InputError("--%s is required" % flag)
  for flag, wanted in (("train_file", s.do_train),
                       ("predict_file", s.do_predict)):
    if wanted:
      if not getattr(s, flag):
        raise InputError("--do_%s needs --%s" % (flag.split("_")[0], flag))
      require_file(flag, getattr(s, flag))
  bert_config, tokenizer = checks.config_and_tokenizer(s)
  if s.max_seq_length <= s.max_query_length + 3:
    raise InputError(
        "--max_seq_length=%d must be greater than --max_query_length=%d + 3"
        % (s.max_seq_length, s.max_query_length))
  for flag in ("doc_stride", "max_query_length", "n_best_size",
               "max_answer_length", "train_batch_size", "predict_batch_size"):
    if getattr(s, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(s, flag)))
  if s.do_train:
    checks.check_training_ranges(s)
  return bert_config, tokenizer


def read_train_examples(s):
  """Reads --train_file and shuffles it as the original (seed 12345)."""
  examples = squad_examples.read_squad_examples(
      s.train_file, is_training=True,
      version_2_with_negative=s.version_2_with_negative)
  if not examples:
    raise InputError("--train_file=%s: no usable training question" %
                     s.train_file)
  random.Random(TRAIN_SHUFFLE_SEED).shuffle(examples)
  return examples


def read_dev_set(s):
  """The parsed --predict_file for evaluation during training.

  Raises:
    InputError: it is missing, malformed, or a question has no answer to
      score against.
  """
  flag = "--eval_every_n_steps=%d" % s.eval_every_n_steps
  if not s.predict_file:
    raise InputError("%s needs --predict_file (the dev set, with answers)"
                     % flag)
  require_file("predict_file", s.predict_file)
  data = squad_examples.read_squad_data(s.predict_file)
  examples = squad_examples.examples_from_json(
      data, False, s.version_2_with_negative, s.predict_file)
  missing = squad_evaluate.questions_without_gold(data)
  if missing or not examples:
    raise InputError(
        "--predict_file=%s: %s; %s scores predictions against the answers "
        "of --predict_file" % (
            s.predict_file, "question %r has no answer (and is not "
            "is_impossible)" % missing[0] if missing else "no question",
            flag))
  return data, examples


def write_features(window, tokenizer, examples, is_training, path):
  """Writes the windows of `examples` to `path` (window: max_seq_length,
  doc_stride, max_query_length); returns the features (prediction) or
  their count (training: not kept in memory)."""
  writer = records.FeatureWriter(path, is_training=is_training)
  kept = []

  def output(feature):
    writer.process_feature(feature)
    if not is_training:
      kept.append(feature)
  try:
    squad_features.convert_examples_to_features(
        examples=examples, tokenizer=tokenizer, is_training=is_training,
        output_fn=output, **window)
  except BaseException:
    writer.abort()
    raise
  writer.close()
  return writer.num_features if is_training else kept


class SquadJob(Job):
  """SQuAD fine-tuning, evaluation and prediction (module docstring)."""
  task_metrics = False  # EM / F1 from the decoded answers.
  record_files = dict(Job.record_files, predict="eval.tf_record")
  preprocessor_class = SquadPreprocessor
  server = staticmethod(serving.server)

  def prepare(self):
    s = self.settings
    self.bert_config, self.tokenizer = validate(s)
    self.dev = None
    self.predict_examples = self.predict_features = None
    self.predictions = None
    self._scores = {}
    self.num_train_steps = None
    self.window = dict(max_seq_length=s.max_seq_length,
                       doc_stride=s.doc_stride,
                       max_query_length=s.max_query_length)
    self.decode_options = dict(
        n_best_size=s.n_best_size, max_answer_length=s.max_answer_length,
        do_lower_case=s.do_lower_case,
        version_2_with_negative=s.version_2_with_negative,
        null_score_diff_threshold=s.null_score_diff_threshold,
        verbose_logging=s.verbose_logging)
    self.trim_padding = bool(s.trim_padding) and not s.use_tpu
    # Read now: nothing reads the settings after the plan.
    self.predict_file = s.predict_file
    self.predict_batch_size = s.predict_batch_size
    self.version_2_with_negative = s.version_2_with_negative
    # No --do_eval: evaluation during training, in predict batches.
    self.evaluates = s.eval_every_n_steps > 0
    self.eval_batch_size = s.predict_batch_size
    if s.do_train:
      self.train_examples = read_train_examples(s)
      self.num_train_examples = len(self.train_examples)
      # An epoch: the questions, as the original (not the windows).
      self.examples_per_epoch = self.num_train_examples
      self.num_train_steps = checks.num_train_steps(
          s, self.num_train_examples, "--train_file=%s" % s.train_file)
    if s.eval_every_n_steps > 0:  # Evaluation during training.
      if not s.do_train:
        raise InputError("--eval_every_n_steps=%d needs --do_train" %
                         s.eval_every_n_steps)
      self.dev, self.predict_examples = read_dev_set(s)
    elif s.do_predict:  # Read (and checked) before anything is written.
      self.predict_examples = squad_examples.read_squad_examples(
          s.predict_file, is_training=False,
          version_2_with_negative=s.version_2_with_negative)

  def build_task(self):
    return ModelTask(functools.partial(
        SquadModel, self.bert_config,
        use_one_hot_embeddings=self.settings.use_tpu))

  def metric_names(self, task):
    """What `evaluate` gives: scoring no answer at all names them all."""
    del task
    nothing = {x.qas_id: "" for x in self.predict_examples}
    return sorted("eval_" + k for k in squad_evaluate.evaluate_dataset(
        self.dev, nothing, self._na_probs(dict.fromkeys(nothing, 0.0))))

  def _na_probs(self, null_odds):
    return null_odds if self.version_2_with_negative else None

  def model_record(self):
    s = self.settings
    return {"task": "squad",
            "preprocessor": dict(do_lower_case=bool(s.do_lower_case),
                                 max_seq_length=s.max_seq_length,
                                 doc_stride=s.doc_stride,
                                 max_query_length=s.max_query_length),
            "model": dict(n_best_size=s.n_best_size,
                          max_answer_length=s.max_answer_length,
                          version_2_with_negative=bool(
                              s.version_2_with_negative),
                          null_score_diff_threshold=float(
                              s.null_score_diff_threshold))}

  def record_spec(self, split):
    return records.name_to_features(self.max_seq_length,
                                    split == "train")

  def input_options(self, training, jit_compile=False):
    del jit_compile  # Fine buckets whatever the training step.
    if training:  # Never trimmed: the loss counts padding positions.
      return {}
    # Every window is predicted (no TPU batch padding, as the original).
    return {"drop_remainder": False, "trim_padding": self.trim_padding,
            "buckets": padding.bucket_lengths(self.max_seq_length,
                                              fine=True)}

  def write_records(self, split, path, pad_to=None):
    del pad_to  # Every window is predicted and decoded.
    if split == "train":
      count = write_features(self.window, self.tokenizer,
                             self.train_examples, True, path)
      logging.info("train: %d questions, %d windows",
                   self.num_train_examples, count)
      self.train_examples = None
      return count
    if self.predict_features is None:  # eval and predict: one file.
      self.predict_features = write_features(
          self.window, self.tokenizer, self.predict_examples, False, path)
      logging.info("%s: %d questions, %d windows", self.predict_file,
                   len(self.predict_examples), len(self.predict_features))
    return len(self.predict_features)

  def _raw_results(self, estimator, input_fn):
    for result in estimator.predict(input_fn):
      yield postprocess.RawResult(
          unique_id=int(result["unique_ids"]),
          start_logits=[float(x) for x in result["start_logits"].flat],
          end_logits=[float(x) for x in result["end_logits"].flat])

  def evaluate(self, estimator, input_fn, steps):
    del steps  # Every window (see write_records).
    checkpoint = estimator.latest_checkpoint()
    if checkpoint not in self._scores:  # The last periodic one: reused.
      predictions, _, null_odds = postprocess.compute_predictions(
          self.predict_examples, self.predict_features,
          list(self._raw_results(estimator, input_fn)),
          **self.decode_options)
      result = {"eval_" + k: v for k, v in squad_evaluate.evaluate_dataset(
          self.dev, predictions, self._na_probs(null_odds)).items()}
      result["global_step"] = checkpoint_step(checkpoint)
      self._scores = {checkpoint: result}
    return dict(self._scores[checkpoint])

  def predict(self, estimator, input_fn):
    logging.info("***** Running predictions ***** batch %d",
                 self.predict_batch_size)
    out = self.output_dir
    self.predictions = postprocess.write_predictions(
        self.predict_examples, self.predict_features,
        list(self._raw_results(estimator, input_fn)),
        output_prediction_file=os.path.join(out, "predictions.json"),
        output_nbest_file=os.path.join(out, "nbest_predictions.json"),
        output_null_log_odds_file=os.path.join(out, "null_odds.json"),
        **self.decode_options)


def run(settings):
  """The whole of run_squad.py for its settings: {"num_train_steps",
  "predictions" ({qas_id: text}; None when not run)}."""
  job = SquadJob(settings)
  driver.run(job)
  return {"num_train_steps": job.num_train_steps,
          "predictions": job.predictions}
