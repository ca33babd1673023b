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

import collections

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.common import atomic_path
from bert_tf2.common import padding


class PaddingInputExample(object):
  """A placeholder example that pads eval/predict sets to a whole batch.

  Converted to all-zero features with is_real_example=0, so it counts in no
  metric and its prediction is dropped. Needed only with --use_tpu (fixed
  batch shapes); elsewhere the last batch is simply smaller.
  """


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
  """Returns the label's index in `label_list`, or the float for regression.

  Raises:
    InputError: naming the example's file and line, if the label is unknown.
  """
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
  """Returns [convert_single_example(...) for each example]."""
  return [convert_single_example(i, ex, label_list, max_seq_length, tokenizer)
          for i, ex in enumerate(examples)]


def feature_to_tf_example(feature):
  """Returns the tf.train.Example holding `feature` (original names)."""
  import tensorflow as tf

  def ints(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=list(values)))

  out = collections.OrderedDict()
  out["input_ids"] = ints(feature.input_ids)
  out["input_mask"] = ints(feature.input_mask)
  out["segment_ids"] = ints(feature.segment_ids)
  if isinstance(feature.label_id, float):
    out["label_ids"] = tf.train.Feature(
        float_list=tf.train.FloatList(value=[feature.label_id]))
  else:
    out["label_ids"] = ints([feature.label_id])
  out["is_real_example"] = ints([int(feature.is_real_example)])
  if feature.example_index is not None:
    out["example_index"] = ints([feature.example_index])
  return tf.train.Example(features=tf.train.Features(feature=out))


def write_features(features, output_file):
  """Writes an iterable of InputFeatures to a TFRecord file, atomically.

  Returns:
    The number of records written.
  """
  import tensorflow as tf
  n = 0
  with atomic_path(output_file) as tmp:
    with tf.io.TFRecordWriter(tmp) as writer:
      for feature in features:
        writer.write(feature_to_tf_example(feature).SerializeToString())
        n += 1
  return n


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


def file_based_input_fn_builder(input_file, seq_length, is_training,
                                drop_remainder, regression=False,
                                with_example_index=False, seed=None,
                                trim_padding=False, buckets=None,
                                group_by_length=False):
  """Returns input_fn(params) -> tf.data.Dataset of int32 feature dicts.

  Training repeats and shuffles (buffer 100) as the original; eval/predict
  read the file once in order. params["batch_size"] sets the batch size.
  With trim_padding, each batch's sequence features are cut to its longest
  sequence rounded up to one of `buckets` (default: the coarse
  `common.padding.bucket_lengths`); same results. With group_by_length
  (training only), batches group sequences of similar length
  (`common.padding.group_by_length`): other batches, less padding.
  """
  import tensorflow as tf
  spec = {
      "input_ids": tf.io.FixedLenFeature([seq_length], tf.int64),
      "input_mask": tf.io.FixedLenFeature([seq_length], tf.int64),
      "segment_ids": tf.io.FixedLenFeature([seq_length], tf.int64),
      "label_ids": tf.io.FixedLenFeature(
          [], tf.float32 if regression else tf.int64),
      "is_real_example": tf.io.FixedLenFeature([], tf.int64),
  }
  if with_example_index:
    spec["example_index"] = tf.io.FixedLenFeature([], tf.int64)

  def decode(record):
    example = tf.io.parse_single_example(record, spec)
    return {k: tf.cast(v, tf.int32) if v.dtype == tf.int64 else v
            for k, v in example.items()}

  def input_fn(params):
    d = tf.data.TFRecordDataset(input_file)
    if is_training:
      d = d.repeat().shuffle(buffer_size=100, seed=seed)
    d = d.map(decode, num_parallel_calls=tf.data.AUTOTUNE)
    if group_by_length and is_training:
      d = padding.group_by_length(
          d, params["batch_size"],
          buckets or padding.bucket_lengths(seq_length), drop_remainder)
    else:
      d = d.batch(params["batch_size"], drop_remainder=drop_remainder)
    if trim_padding:
      d = padding.trim_batch_padding(d, seq_length, buckets)
    return d

  return input_fn
