"""Classifier serving: the raw-string SavedModel of a classifier.

A `common.serving.TextServer` of the task's two homes: its preprocessor
(`common.preprocessor.BertPreprocessor`: in-graph tokenizer, the one
packer `tokenization.packing`, run_classifier.py's sliding windows and
their mean) and its model's head (`classifier.model.head_outputs`), plus
the label names. Signatures (listed in `bert_tf2.classifier.export`):
serving_default (text_a), serving_pair (text_a, text_b), serving_ids.
`export_dir` is written by `write_saved_model`, the one writer of the
scripts' --export_dir and `ClassifierPredictor.export`.
"""

import tensorflow as tf

from bert_tf2.classifier import model as model_lib
from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor


def classifier_outputs(label_list, regression=False, multi_label=False):
  """fn(features, logits, texts) -> the signatures' outputs: the head's
  answers (`model.head_outputs`), the label names, and num_windows where
  the texts were windowed."""
  labels = tf.constant([str(x) for x in label_list])

  def outputs(features, logits, texts):
    del texts
    out = model_lib.head_outputs(logits, regression, multi_label)
    if multi_label:
      out["predicted"] = out["probabilities"] >= 0.5
    elif not regression:
      out["label"] = tf.gather(labels, tf.argmax(logits, axis=-1))
    if "window_example" in features:
      texts = tf.shape(logits)[0]
      out["num_windows"] = tf.math.bincount(
          features["window_example"], minlength=texts, maxlength=texts,
          dtype=tf.int32)
    return out
  return outputs


def classifier_server(model, vocab_file, do_lower_case, max_seq_length,
                      label_list, regression=False, trim_padding=True,
                      long_text="truncate", doc_stride=128,
                      multi_label=False,
                      chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
  """The `TextServer` of a classifier model (its logits [batch, labels])."""
  preprocessor = BertPreprocessor(vocab_file, do_lower_case=do_lower_case,
                                  max_seq_length=max_seq_length,
                                  long_text=long_text, doc_stride=doc_stride)
  return serving.TextServer(
      preprocessor, model,
      classifier_outputs(label_list, regression, multi_label),
      chunk_size=chunk_size, trim_padding=trim_padding,
      name="classifier_server")


def write_saved_model(model, export_dir, vocab_file, do_lower_case,
                      max_seq_length, label_list, what="export_dir",
                      **options):
  """Writes the classifier's raw-string SavedModel atomically; returns
  export_dir. options: those of `classifier_server`."""
  server = classifier_server(model, vocab_file, do_lower_case,
                             max_seq_length, label_list, **options)
  return server.write(export_dir, {
      "serving_default": server.text_signature(["text_a"]),
      "serving_pair": server.text_signature(["text_a", "text_b"]),
      "serving_ids": server.ids_signature()}, what=what)
