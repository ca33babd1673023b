"""Input lines -> BERT inputs for feature extraction.

Each line of the input file is one example: a single text, or a pair written
"text_a ||| text_b". As in the original, the line is matched against
`^(.*) \\|\\|\\| (.*)$`, so with several separators the LAST one splits.
Example ids are line numbers from 0 ("linex_index" in the output).

Example:
  >>> ex = parse_line(3, "Who was Jim Henson ? ||| Jim Henson was a puppeteer")
  >>> ex.unique_id, ex.text_a, ex.text_b
  (3, 'Who was Jim Henson ?', 'Jim Henson was a puppeteer')
"""

import re

from bert_tf2.classifier.features import _truncate_seq_pair
from bert_tf2.common import InputError

_PAIR = re.compile(r"^(.*) \|\|\| (.*)$")


class InputExample(object):
  """One line: unique_id (int line number), text_a, text_b (str or None)."""

  def __init__(self, unique_id, text_a, text_b):
    self.unique_id = unique_id
    self.text_a = text_a
    self.text_b = text_b


class InputFeatures(object):
  """Model inputs of one line.

  Attributes:
    unique_id: int.
    tokens: list of str, [CLS] a [SEP] (b [SEP]); no padding.
    input_ids, input_mask, input_type_ids: lists of seq_length ints.
  """

  def __init__(self, unique_id, tokens, input_ids, input_mask, input_type_ids):
    self.unique_id = unique_id
    self.tokens = tokens
    self.input_ids = input_ids
    self.input_mask = input_mask
    self.input_type_ids = input_type_ids


def parse_line(unique_id, line):
  """One stripped input line -> InputExample."""
  line = line.strip()
  m = _PAIR.match(line)
  if m is None:
    return InputExample(unique_id, line, None)
  return InputExample(unique_id, m.group(1), m.group(2))


def read_examples(input_file):
  """Reads the input file (UTF-8, one example per line; gs:// works).

  Raises:
    InputError: the file is missing or not UTF-8.
  """
  import tensorflow as tf  # gfile reads local and remote paths alike.
  if not tf.io.gfile.exists(input_file):
    raise InputError("--input_file=%s: file not found" % input_file)
  try:
    with tf.io.gfile.GFile(input_file, "rb") as f:
      text = f.read().decode("utf-8")
  except UnicodeDecodeError as e:
    raise InputError("--input_file=%s: not UTF-8 text (%s)" % (input_file, e))
  # The original reads with readline(): it splits on "\n" only and stops at
  # the first empty string, i.e. at the end of the file.
  lines = text.split("\n")
  if lines and lines[-1] == "":
    lines.pop()
  return [parse_line(i, line) for i, line in enumerate(lines)]


def convert_example(example, seq_length, tokenizer):
  """InputExample -> InputFeatures ([CLS] a [SEP] b [SEP], zero padded)."""
  tokens_a = tokenizer.tokenize(example.text_a)
  tokens_b = tokenizer.tokenize(example.text_b) if example.text_b else None
  if tokens_b:
    _truncate_seq_pair(tokens_a, tokens_b, seq_length - 3)
  else:
    tokens_a = tokens_a[:seq_length - 2]
  tokens = ["[CLS]"] + tokens_a + ["[SEP]"]
  input_type_ids = [0] * len(tokens)
  if tokens_b:
    tokens += tokens_b + ["[SEP]"]
    input_type_ids += [1] * (len(tokens_b) + 1)
  input_ids = list(tokenizer.convert_tokens_to_ids(tokens))
  input_mask = [1] * len(input_ids)
  padding = seq_length - len(input_ids)
  return InputFeatures(example.unique_id, tokens, input_ids + [0] * padding,
                       input_mask + [0] * padding,
                       input_type_ids + [0] * padding)


def convert_examples_to_features(examples, seq_length, tokenizer):
  """list of InputExample -> list of InputFeatures."""
  return [convert_example(e, seq_length, tokenizer) for e in examples]
