"""InputExample -> model features, and the train/eval/predict TFRecords.

`convert_single_example` builds the original's input layout:

  pair:    [CLS] a1 a2 ... [SEP] b1 b2 ... [SEP] 0 0 ...
  segment:   0   0  0  ...   0    1  1  ...   1  0 0 ...
  single:  [CLS] a1 a2 ... [SEP] 0 0 ...

with pairs trimmed longest-first (`_truncate_seq_pair`), single sequences
cut to max_seq_length - 2, and zero padding. The TFRecords carry the
original feature names: input_ids, input_mask, segment_ids, label_ids,
is_real_example (plus example_index for sliding windows, see long_text.py).

Example:
  >>> class Tok(object):  # any object with tokenize/convert_tokens_to_ids
  ...   vocab = {"[CLS]": 1, "[SEP]": 2, "a": 3, "b": 4}
  ...   def tokenize(self, text): return text.split()
  ...   def convert_tokens_to_ids(self, tokens):
  ...     return [self.vocab[t] for t in tokens]
  >>> from bert_tf2.classifier.processors import InputExample
  >>> f = convert_single_example(0, InputExample("x", "a a", "b", "1"),
  ...                            ["0", "1"], 7, Tok())
  >>> f.input_ids, f.segment_ids, f.label_id
  ([1, 3, 3, 2, 4, 2, 0], [0, 0, 0, 0, 1, 1, 0], 1)
"""

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.finetune import records


class PaddingInputExample(object):
  """Pads eval/predict sets to whole batches (--use_tpu): all-zero features
  with is_real_example=0, in no metric and no prediction."""


class InputFeatures(object):
  """Features of one example (lists of int of length max_seq_length)."""

  def __init__(self, input_ids, input_mask, segment_ids, label_id,
               is_real_example=True, example_index=None):
    self.input_ids = input_ids
    self.input_mask = input_mask
    self.segment_ids = segment_ids
    self.label_id = label_id
    self.is_real_example = is_real_example
    self.example_index = example_index


def _truncate_seq_pair(tokens_a, tokens_b, max_length):
  """Trims the longer list (tokens_b on ties) one token at a time, in place,
  until len(tokens_a) + len(tokens_b) <= max_length."""
  while len(tokens_a) + len(tokens_b) > max_length:
    if len(tokens_a) > len(tokens_b):
      tokens_a.pop()
    else:
      tokens_b.pop()


def label_id_for(example, label_list):
  """Returns the label's index in `label_list`, or the float for regression;
  InputError naming the example's file and line if the label is unknown."""
  if label_list == [None]:
    return float(example.label)
  try:
    return label_list.index(example.label)
  except ValueError:
    where = example.source or "example %s" % example.guid
    raise InputError("%s: unknown label %r; the task's labels are %s" %
                     (where, example.label, label_list)) from None


def build_inputs(tokens_a, tokens_b, max_seq_length, tokenizer):
  """Returns (tokens, input_ids, input_mask, segment_ids) for trimmed tokens."""
  tokens = ["[CLS]"] + tokens_a + ["[SEP]"]
  segment_ids = [0] * len(tokens)
  if tokens_b:
    tokens += tokens_b + ["[SEP]"]
    segment_ids += [1] * (len(tokens_b) + 1)
  input_ids = tokenizer.convert_tokens_to_ids(tokens)
  input_mask = [1] * len(input_ids)
  pad = max_seq_length - len(input_ids)
  return (tokens, input_ids + [0] * pad, input_mask + [0] * pad,
          segment_ids + [0] * pad)


def convert_single_example(ex_index, example, label_list, max_seq_length,
                           tokenizer):
  """Converts one `InputExample` (or PaddingInputExample) to InputFeatures."""
  if isinstance(example, PaddingInputExample):
    zeros = [0] * max_seq_length
    return InputFeatures(list(zeros), list(zeros), list(zeros), 0,
                         is_real_example=False)
  label_id = label_id_for(example, label_list)
  tokens_a = tokenizer.tokenize(example.text_a)
  tokens_b = tokenizer.tokenize(example.text_b) if example.text_b else None
  if tokens_b:
    _truncate_seq_pair(tokens_a, tokens_b, max_seq_length - 3)
  else:
    tokens_a = tokens_a[:max_seq_length - 2]
  tokens, input_ids, input_mask, segment_ids = build_inputs(
      tokens_a, tokens_b, max_seq_length, tokenizer)
  if ex_index < 5:
    logging.info("*** Example *** guid: %s", example.guid)
    logging.info("tokens: %s", " ".join(tokens))
    logging.info("input_ids: %s", " ".join(map(str, input_ids)))
    logging.info("label: %s (id = %s)", example.label, label_id)
  return InputFeatures(input_ids, input_mask, segment_ids, label_id)


def convert_examples_to_features(examples, label_list, max_seq_length,
                                 tokenizer):
  """Returns [convert_single_example(...) for each example] (the original's
  name, used by its notebooks)."""
  return [convert_single_example(i, ex, label_list, max_seq_length, tokenizer)
          for i, ex in enumerate(examples)]


def feature_to_tf_example(feature):
  """Returns the tf.train.Example holding `feature` (original names)."""
  out = {"input_ids": feature.input_ids, "input_mask": feature.input_mask,
         "segment_ids": feature.segment_ids, "label_ids": feature.label_id,
         "is_real_example": int(feature.is_real_example)}
  if feature.example_index is not None:
    out["example_index"] = feature.example_index
  return records.to_example(out)


def write_features(features, output_file):
  """Writes InputFeatures to a TFRecord file, atomically; returns the count."""
  return records.write_records(
      output_file, (feature_to_tf_example(f) for f in features))


def file_based_convert_examples_to_features(examples, label_list,
                                            max_seq_length, tokenizer,
                                            output_file):
  """Converts `examples` and writes them to `output_file` (a TFRecord)."""
  def generate():
    for i, ex in enumerate(examples):
      if i % 10000 == 0:
        logging.info("Writing example %d of %d", i, len(examples))
      yield convert_single_example(i, ex, label_list, max_seq_length,
                                   tokenizer)
  return write_features(generate(), output_file)


def record_spec(seq_length, regression=False, with_example_index=False):
  """The classifier's record spec (float label_ids for regression)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  scalars = {"label_ids": tf.float32 if regression else tf.int64,
             "is_real_example": tf.int64}
  if with_example_index:
    scalars["example_index"] = tf.int64
  return records.sequence_spec(
      seq_length, ("input_ids", "input_mask", "segment_ids"), scalars)


def file_based_input_fn_builder(input_file, seq_length, is_training,
                                drop_remainder, regression=False,
                                with_example_index=False, seed=None,
                                trim_padding=False, buckets=None,
                                group_by_length=False):
  """Returns input_fn(params) -> tf.data.Dataset of int32 feature dicts
  (`finetune.records.input_fn`; shuffle buffer 100 as the original)."""
  return records.input_fn(
      input_file, record_spec(seq_length, regression, with_example_index),
      seq_length, is_training, drop_remainder=drop_remainder, seed=seed,
      shuffle_buffer=100, trim_padding=trim_padding, buckets=buckets,
      group_by_length=group_by_length)
