"""Documents longer than max_seq_length: `--long_text=sliding_window`.

text_a is cut into overlapping windows (`tokenization.windows.window_starts`)
every `doc_stride` word pieces; text_b (if any) is repeated in every window,
trimmed to at most half of the sequence. Every window is a training example
with the document's label; at eval/predict time a document's window logits
are averaged (`tokenization.windows.mean_of_windows`).
"""

from absl import logging

from tokenization import windows
from bert_tf2.classifier.features import InputFeatures
from bert_tf2.classifier.features import build_inputs
from bert_tf2.classifier.features import label_id_for
from bert_tf2.classifier.features import write_features

LONG_TEXT_MODES = ("truncate", "sliding_window")


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
  for start in windows.window_starts(len(tokens_a), window, doc_stride):
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
      yield from convert_example_to_windows(
          i, ex, label_list, max_seq_length, doc_stride, tokenizer)
  n = write_features(generate(), output_file)
  logging.info("%d examples -> %d windows", len(examples), n)
  return n

