"""The up-front flag checks every fine-tuning job shares.

Each job's `prepare` calls `check_settings` before its own checks, before
any output is written.

Example:
  >>> from bert_tf2.classifier.options import default_options
  >>> check_settings(default_options(task_name="tsv"), export_acts=False)
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: At least one of --do_train, --do_eval or --do_predict must be True
"""

import os

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import setup_checks

BATCH_SIZE_FLAGS = ("train_batch_size", "eval_batch_size",
                    "predict_batch_size")
SPLIT_FILES = {"train": "train_file", "eval": "dev_file",
               "predict": "test_file"}


def check_settings(s, required=("data_dir", "output_dir"), export_acts=True,
                   min_seq_length=3, dropout=True):
  """Raises InputError for the first shared setting that is wrong.

  Args:
    s: the script's Settings (or default_options(...)).
    required: flags that must be given.
    export_acts: --export_dir alone is a run (NER, multiple choice,
      embeddings); run_classifier.py keeps the original's message, which
      names only --do_train, --do_eval and --do_predict.
    min_seq_length: the smallest --max_seq_length the task can encode, or
      None to leave it to the job.
    dropout: check --classifier_dropout_prob (the task has a dropout head).
  """
  if export_acts:
    if not (s.do_train or s.do_eval or s.do_predict or s.export_dir):
      raise InputError("At least one of --do_train, --do_eval, --do_predict "
                       "or --export_dir must be set")
  elif not (s.do_train or s.do_eval or s.do_predict):
    raise InputError("At least one of --do_train, --do_eval or --do_predict "
                     "must be True")
  for flag in required:
    if not getattr(s, flag):
      raise InputError("--%s is required" % flag)
  if "data_dir" in required and not tf.io.gfile.isdir(s.data_dir):
    raise InputError("--data_dir=%s: not a directory" % s.data_dir)
  if min_seq_length is not None and s.max_seq_length < min_seq_length:
    raise InputError("--max_seq_length=%d: must be at least %d" %
                     (s.max_seq_length, min_seq_length))
  if dropout and not 0 <= s.classifier_dropout_prob < 1:
    raise InputError("--classifier_dropout_prob=%s: must be in [0, 1)" %
                     s.classifier_dropout_prob)
  for flag in BATCH_SIZE_FLAGS:
    if getattr(s, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(s, flag)))
  if s.do_train:
    check_training_ranges(s)


def check_training_ranges(s):
  """Raises InputError unless 0 <= --learning_rate < inf, --num_train_epochs
  > 0 and 0 <= --warmup_proportion <= 1 (NaN fails every test). A learning
  rate of 0 is allowed: it exports --init_checkpoint through training.

  >>> import types
  >>> check_training_ranges(types.SimpleNamespace(
  ...     learning_rate=-1.0, num_train_epochs=3.0, warmup_proportion=0.1))
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: --learning_rate=-1.0: must be >= 0 and finite
  """
  if not 0 <= s.learning_rate < float("inf"):
    raise InputError("--learning_rate=%s: must be >= 0 and finite"
                     % s.learning_rate)
  if not s.num_train_epochs > 0:
    raise InputError("--num_train_epochs=%s: must be > 0"
                     % s.num_train_epochs)
  if not 0 <= s.warmup_proportion <= 1:
    raise InputError("--warmup_proportion=%s: must be in [0, 1]"
                     % s.warmup_proportion)


def num_train_steps(s, epoch_size, source):
  """The original's training steps, int(epoch_size / --train_batch_size *
  --num_train_epochs).

  Args:
    s: holds --train_batch_size and --num_train_epochs.
    epoch_size: training examples per epoch.
    source: where they come from, for the message (e.g. "--data_dir=d").

  Raises:
    InputError: that is 0.

  >>> import types
  >>> s = types.SimpleNamespace(train_batch_size=32, num_train_epochs=3.0)
  >>> num_train_steps(s, 100, "--train_file=t.json")
  9
  >>> num_train_steps(s, 10, "--train_file=t.json")
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: --train_file=t.json: 10 training examples / --train_batch_size=32 x --num_train_epochs=3 gives 0 training steps; lower --train_batch_size or raise --num_train_epochs
  """
  steps = int(epoch_size / s.train_batch_size * s.num_train_epochs)
  if steps < 1:
    raise InputError(
        "%s: %d training examples / --train_batch_size=%d x "
        "--num_train_epochs=%g gives 0 training steps; lower "
        "--train_batch_size or raise --num_train_epochs" % (
            source, epoch_size, s.train_batch_size, s.num_train_epochs))
  return steps


def check_train_steps(s, source, at_least, exact=None):
  """Refuses a --do_train run of 0 steps (`num_train_steps`).

  Args:
    s: the settings.
    source: where the training examples come from, for the message.
    at_least: a lower bound of the examples per epoch.
    exact: None, or a callable giving the exact count; called only when
      `at_least` gives no step.
  """
  if not s.do_train:
    return
  if int(at_least / s.train_batch_size * s.num_train_epochs) >= 1:
    return
  num_train_steps(s, exact() if exact is not None else at_least, source)


def config_and_tokenizer(s, **kwargs):
  """(bert_config, tokenizer) of the settings'
  `setup_checks.load_config_and_tokenizer` (kwargs: its other options)."""
  return setup_checks.load_config_and_tokenizer(
      s.bert_config_file, s.vocab_file, do_lower_case=s.do_lower_case,
      init_checkpoint=s.init_checkpoint, max_seq_length=s.max_seq_length,
      **kwargs)


def split_files(s, fallbacks=None):
  """Yields (split, flag, path) for each split the flags ask for
  (`SPLIT_FILES`, in --data_dir), checking each path exists when reached.

  Args:
    s: the settings.
    fallbacks: {flag: (default, other name)}: a flag left at its default
      whose file is missing reads `other name` instead, when that exists.

  Raises:
    InputError: the file of a wanted split does not exist.
  """
  wanted = {"train": s.do_train, "eval": s.do_eval, "predict": s.do_predict}
  for split, flag in SPLIT_FILES.items():
    if wanted[split]:
      path = os.path.join(s.data_dir, getattr(s, flag))
      default, other = (fallbacks or {}).get(flag, (None, None))
      if not tf.io.gfile.exists(path) and getattr(s, flag) == default:
        if tf.io.gfile.exists(os.path.join(s.data_dir, other)):
          yield split, flag, os.path.join(s.data_dir, other)
          continue
        raise InputError("--%s=%s: file not found (nor %s)"
                         % (flag, path, other))
      if not tf.io.gfile.exists(path):
        raise InputError("--%s=%s: file not found" % (flag, path))
      yield split, flag, path
