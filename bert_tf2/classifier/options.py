"""Flag values for `run_classifier.py`: defaults and up-front validation.

`default_options(**overrides)` gives the script's flags as a namespace (for
library use and tests); `validate(options)` checks flags and files before
any work and returns (bert_config, tokenizer).
"""

from absl import logging
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import cli
import modeling
import tokenization
from bert_tf2.classifier import long_text


def default_options(**overrides):
  """The script's flags with their defaults, as a namespace (for library use
  and tests): e.g. default_options(task_name="mrpc", data_dir=..., ...)."""
  import types  # pylint: disable=g-import-not-at-top
  values = dict(
      data_dir=None, bert_config_file=None, task_name=None, vocab_file=None,
      output_dir=None, init_checkpoint=None, do_lower_case=True,
      max_seq_length=128, do_train=False, do_eval=False, do_predict=False,
      train_batch_size=32, eval_batch_size=8, predict_batch_size=8,
      learning_rate=5e-5, num_train_epochs=3.0, warmup_proportion=0.1,
      save_checkpoints_steps=1000, iterations_per_loop=1000, use_tpu=False,
      tpu_name=None, tpu_zone=None, gcp_project=None, master=None,
      num_tpu_cores=8, strategy=None, precision="float32", jit_compile=False,
      keep_checkpoint_max=5, gradient_accumulation_steps=1,
      optimizer="adamw", skip_consumed_batches=False, export_dir=None,
      long_text="truncate", doc_stride=64, text_a_column="1",
      text_b_column=None, label_column="0", label_list=None, has_header=True,
      delimiter=None, quotechar=None, train_file=None, dev_file=None,
      test_file=None, trim_padding=True)
  unknown = set(overrides) - set(values)
  if unknown:
    raise TypeError("unknown options: %s" % sorted(unknown))
  values.update(overrides)
  return types.SimpleNamespace(**values)


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
  cli.require_file("bert_config_file", o.bert_config_file)
  cli.require_file("vocab_file", o.vocab_file)
  tokenization.validate_case_matches_checkpoint(o.do_lower_case,
                                                o.init_checkpoint)
  try:
    bert_config = modeling.BertConfig.from_json_file(o.bert_config_file)
  except InputError:
    raise
  except Exception as e:  # pylint: disable=broad-except
    raise InputError("--bert_config_file=%s: %s" % (o.bert_config_file, e))
  modeling.check_sequence_length(bert_config, o.max_seq_length)
  if o.max_seq_length < 3:
    raise InputError("--max_seq_length=%d: must be at least 3" %
                     o.max_seq_length)
  tokenizer = tokenization.FullTokenizer(vocab_file=o.vocab_file,
                                         do_lower_case=o.do_lower_case)
  if len(tokenizer.vocab) > bert_config.vocab_size:
    raise InputError(
        "--vocab_file=%s has %d tokens but --bert_config_file=%s has "
        "vocab_size=%d" % (o.vocab_file, len(tokenizer.vocab),
                           o.bert_config_file, bert_config.vocab_size))
  if len(tokenizer.vocab) < bert_config.vocab_size:
    logging.warning("vocab_file has %d tokens, bert config vocab_size=%d",
                    len(tokenizer.vocab), bert_config.vocab_size)
  for token in ("[CLS]", "[SEP]"):
    if token not in tokenizer.vocab:
      raise InputError("--vocab_file=%s: has no %s token" % (o.vocab_file,
                                                             token))
  if o.long_text not in long_text.LONG_TEXT_MODES:
    raise InputError("--long_text=%s: expected one of %s" % (
        o.long_text, ", ".join(long_text.LONG_TEXT_MODES)))
  if o.long_text == "sliding_window" and o.doc_stride < 1:
    raise InputError("--doc_stride=%d: must be >= 1" % o.doc_stride)
  for flag in ("train_batch_size", "eval_batch_size", "predict_batch_size"):
    if getattr(o, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(o, flag)))
  if o.init_checkpoint:
    modeling.resolve_checkpoint(o.init_checkpoint)
  return bert_config, tokenizer


