"""Flag values for `run_classifier.py`: defaults and up-front validation."""

from bert_tf2.common import InputError
from bert_tf2.classifier import flags as classifier_flags
from bert_tf2.classifier import long_text
from bert_tf2.finetune import checks
from bert_tf2.finetune.settings import settings_with_defaults


def default_options(**overrides):
  """The script's settings with the defaults of `classifier.flags`.

  Example:
    >>> o = default_options(task_name="mrpc")
    >>> o.task_name, o.max_seq_length, o.learning_rate, o.use_tpu
    ('mrpc', 128, 5e-05, False)
  """
  return settings_with_defaults(classifier_flags.define_flags, **overrides)


def generic_options(o):
  """GenericProcessor's keyword arguments from the tsv/csv flags."""
  options = {
      "text_a_column": o.text_a_column, "text_b_column": o.text_b_column,
      "label_column": o.label_column, "has_header": o.has_header,
      "label_list": [x for x in (o.label_list or "").split(",") if x] or None,
  }
  for name in ("delimiter", "quotechar", "train_file", "dev_file",
               "test_file"):
    if getattr(o, name):
      options[name] = getattr(o, name)
  return options


def validate(o):
  """Checks flags and files up front; returns (bert_config, tokenizer)."""
  checks.check_settings(o, required=("data_dir", "task_name", "output_dir"),
                        export_acts=False)
  bert_config, tokenizer = checks.config_and_tokenizer(o)
  if o.long_text not in long_text.LONG_TEXT_MODES:
    raise InputError("--long_text=%s: expected one of %s" % (
        o.long_text, ", ".join(long_text.LONG_TEXT_MODES)))
  if o.long_text == "sliding_window" and o.doc_stride < 1:
    raise InputError("--doc_stride=%d: must be >= 1" % o.doc_stride)
  if o.group_by_length and (not o.trim_padding or o.use_tpu):
    raise InputError("--group_by_length needs --trim_padding (and no "
                     "--use_tpu: TPUs run one fixed length)")
  return bert_config, tokenizer
