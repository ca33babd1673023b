"""Flag values for `run_classifier.py`: defaults and up-front validation.

`default_options(**overrides)` gives the script's settings (with the
defaults of `classifier.flags`), for library use and tests;
`validate(options)` checks flags and files before any work and returns
(bert_config, tokenizer).
"""

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import setup_checks
from bert_tf2.classifier import flags as classifier_flags
from bert_tf2.classifier import long_text
from bert_tf2.finetune.settings import settings_with_defaults


def default_options(**overrides):
  """The script's flags with their defaults, as a namespace (for library use
  and tests): e.g. default_options(task_name="mrpc", data_dir=..., ...).

  The defaults are those `classifier.flags.define_flags` declares.

  Example:
    >>> o = default_options(task_name="mrpc")
    >>> o.task_name, o.max_seq_length, o.learning_rate, o.use_tpu
    ('mrpc', 128, 5e-05, False)
  """
  return settings_with_defaults(classifier_flags.define_flags, **overrides)


def generic_options(o):
  options = {
      "text_a_column": o.text_a_column, "text_b_column": o.text_b_column,
      "label_column": o.label_column, "has_header": o.has_header,
      "label_list": [x for x in (o.label_list or "").split(",") if x] or None,
  }
  for name in ("delimiter", "quotechar", "train_file", "dev_file",
               "test_file"):
    if getattr(o, name, None):
      options[name] = getattr(o, name)
  return options


def validate(o):
  """Checks flags and files up front; returns (bert_config, tokenizer)."""
  if not (o.do_train or o.do_eval or o.do_predict):
    raise InputError("At least one of --do_train, --do_eval or --do_predict "
                     "must be True")
  for flag in ("data_dir", "task_name", "output_dir"):
    if not getattr(o, flag):
      raise InputError("--%s is required" % flag)
  if not tf.io.gfile.isdir(o.data_dir):
    raise InputError("--data_dir=%s: not a directory" % o.data_dir)
  if o.max_seq_length < 3:
    raise InputError("--max_seq_length=%d: must be at least 3" %
                     o.max_seq_length)
  if not 0 <= o.classifier_dropout_prob < 1:
    raise InputError("--classifier_dropout_prob=%s: must be in [0, 1)" %
                     o.classifier_dropout_prob)
  bert_config, tokenizer = setup_checks.load_config_and_tokenizer(
      o.bert_config_file, o.vocab_file, do_lower_case=o.do_lower_case,
      init_checkpoint=o.init_checkpoint, max_seq_length=o.max_seq_length)
  if o.long_text not in long_text.LONG_TEXT_MODES:
    raise InputError("--long_text=%s: expected one of %s" % (
        o.long_text, ", ".join(long_text.LONG_TEXT_MODES)))
  if o.long_text == "sliding_window" and o.doc_stride < 1:
    raise InputError("--doc_stride=%d: must be >= 1" % o.doc_stride)
  for flag in ("train_batch_size", "eval_batch_size", "predict_batch_size"):
    if getattr(o, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(o, flag)))
  if getattr(o, "group_by_length", False) and (
      not getattr(o, "trim_padding", True) or o.use_tpu):
    raise InputError("--group_by_length needs --trim_padding (and no "
                     "--use_tpu: TPUs run one fixed length)")
  return bert_config, tokenizer


