"""Classifier serving: the raw-string SavedModel of a classifier.

A `common.serving.TextServer` of the task's `BertPreprocessor` and its
model's `BertClassifier.head_outputs`, plus the label names.

Signatures (batch dimension free):
  serving_default  text_a: tf.string [batch] -> probabilities, logits, label
  serving_pair     text_a, text_b: tf.string [batch] -> (same)
  serving_ids      input_ids, input_mask, segment_ids: int32 [batch, seq]
                   -> (same)
For a regression task (STS-B) the outputs are predictions and logits; for
a multi-label task (`--label_column=a,b,c`) probabilities are per-label
sigmoids, with logits and predicted (bool [batch, num_labels]).

With long_text="sliding_window" the raw-string signatures average each
text's window logits (`bert_tf2.classifier.long_text`) and also return
num_windows (int32 [batch]); serving_ids stays one row = one window. The
raw-string inputs are built as `convert_single_example` builds them; an
empty text_b means a single sentence.

Example:
  >>> m = tf.saved_model.load(export_dir)                    # doctest: +SKIP
  >>> m.signatures["serving_default"](
  ...     text_a=tf.constant(["a gripping, beautiful film"]))  # doctest: +SKIP
  {'label': <tf.Tensor: [b'pos']>, 'probabilities': ..., 'logits': ...}
"""

import tensorflow as tf

from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving


SIGNATURES = {"serving_default": ("text_a",),
              "serving_pair": ("text_a", "text_b"),
              "serving_ids": serving.IDS}


def classifier_outputs(model, label_list):
  """fn(features, logits, texts) -> the signatures' outputs: `model`'s
  `head_outputs`, the label and num_windows where the texts were windowed."""
  labels = tf.constant([str(x) for x in label_list])

  def outputs(features, logits, texts):
    del texts
    out = model.head_outputs(logits)
    if "probabilities" in out and "predicted" not in out:  # Single-label.
      out["label"] = tf.gather(labels, tf.argmax(logits, axis=-1))
    if "window_example" in features:
      texts = tf.shape(logits)[0]
      out["num_windows"] = tf.math.bincount(
          features["window_example"], minlength=texts, maxlength=texts,
          dtype=tf.int32)
    return out
  return outputs


def classifier_server(model, preprocessor, label_list, trim_padding=True,
                      chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
  """The `TextServer` of a classifier model and its `BertPreprocessor`,
  with SIGNATURES."""
  return serving.TextServer(
      preprocessor, model,
      classifier_outputs(model, label_list), signatures=SIGNATURES,
      chunk_size=chunk_size, trim_padding=trim_padding,
      name="classifier_server")


def server(model, preprocessor, labels=None, **unused_settings):
  """The task's server (`common.serving.server`); labels default "0", "1"..."""
  if labels is None:
    labels = [str(i) for i in range(model.num_labels)]
  return classifier_server(model, preprocessor, labels)
