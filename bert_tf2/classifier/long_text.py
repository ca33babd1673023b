"""Documents longer than max_seq_length: `--long_text=sliding_window`.

The original (and `--long_text=truncate`, the default) keeps only the first
max_seq_length - 2 word pieces. With sliding windows, text_a is cut into
overlapping windows of the longest length that fits, each starting
`doc_stride` word pieces after the previous one, until the last window
reaches the end of the text. text_b (if any) is repeated in every window,
trimmed to at most half of the sequence. Every window is a training example
with the document's label; at eval/predict time the logits of a document's
windows are averaged and the softmax of that mean is its prediction.

Example:
  >>> window_starts(num_tokens=10, window=4, doc_stride=3)
  [0, 3, 6]
  >>> import numpy as np
  >>> average_window_logits([0, 0, 1], np.array([[1., 3.], [3., 1.], [0., 2.]]),
  ...                       num_examples=2).tolist()
  [[2.0, 2.0], [0.0, 2.0]]
"""

import numpy as np

from absl import logging

from bert_tf2.common import InputError
from bert_tf2.classifier.features import InputFeatures
from bert_tf2.classifier.features import build_inputs
from bert_tf2.classifier.features import label_id_for
from bert_tf2.classifier.features import write_features

LONG_TEXT_MODES = ("truncate", "sliding_window")


def window_starts(num_tokens, window, doc_stride):
  """Returns the start offsets of windows of `window` tokens over a text."""
  if window < 1 or doc_stride < 1:
    raise InputError("--doc_stride and the window length must be >= 1 "
                     "(doc_stride=%d, window=%d)" % (doc_stride, window))
  starts = [0]
  while starts[-1] + window < num_tokens:
    starts.append(starts[-1] + min(doc_stride, window))
  return starts


def convert_example_to_windows(example_index, example, label_list,
                               max_seq_length, doc_stride, tokenizer):
  """Returns a list of InputFeatures, one per window, all with example_index."""
  label_id = label_id_for(example, label_list)
  tokens_a = tokenizer.tokenize(example.text_a)
  tokens_b = tokenizer.tokenize(example.text_b) if example.text_b else None
  if tokens_b:
    tokens_b = tokens_b[:(max_seq_length - 3) // 2]
    window = max_seq_length - 3 - len(tokens_b)
  else:
    window = max_seq_length - 2
  features = []
  for start in window_starts(len(tokens_a), window, doc_stride):
    _, ids, mask, segments = build_inputs(
        tokens_a[start:start + window], tokens_b, max_seq_length, tokenizer)
    features.append(InputFeatures(ids, mask, segments, label_id,
                                  example_index=example_index))
  return features


def write_windows(examples, label_list, max_seq_length, doc_stride, tokenizer,
                  output_file):
  """Writes every window of every example to a TFRecord; returns the count."""
  def generate():
    for i, ex in enumerate(examples):
      for feature in convert_example_to_windows(
          i, ex, label_list, max_seq_length, doc_stride, tokenizer):
        yield feature
  n = write_features(generate(), output_file)
  logging.info("%d examples -> %d windows", len(examples), n)
  return n


def average_window_logits(example_indexes, logits, num_examples):
  """Averages window logits per example.

  Args:
    example_indexes: int sequence [num_windows], the example of each window.
    logits: float array [num_windows, num_labels].
    num_examples: number of examples; each must have at least one window.

  Returns:
    float64 array [num_examples, num_labels].
  """
  idx = np.asarray(example_indexes, dtype=np.int64)
  logits = np.asarray(logits, dtype=np.float64)
  sums = np.zeros((num_examples, logits.shape[-1]))
  np.add.at(sums, idx, logits)
  counts = np.bincount(idx, minlength=num_examples)[:num_examples]
  if np.any(counts == 0):
    raise ValueError("examples without windows: %s" %
                     np.flatnonzero(counts == 0)[:10].tolist())
  return sums / counts[:, None]


def softmax(logits):
  """Row-wise softmax of a numpy array."""
  z = logits - np.max(logits, axis=-1, keepdims=True)
  e = np.exp(z)
  return e / np.sum(e, axis=-1, keepdims=True)
