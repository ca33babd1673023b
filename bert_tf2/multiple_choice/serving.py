"""Raw-string SavedModel of a fine-tuned multiple-choice model.

Signature (batch and number of choices free):
  serving_default  context: tf.string [batch],
                   choices: tf.string [batch, num_choices]
                   -> probabilities float32 [batch, num_choices] (softmax
                      over the choices), logits, label int32 [batch] (the
                      index of the most probable choice)
Each (context, choice) pair is built as `features.convert_example` by the
`MultipleChoicePreprocessor`, in a `common.serving.TextServer` (the serving
contract of `bert_tf2.common.raw_text_serving`; choices must be 2-D).

Example:
  >>> serve = tf.saved_model.load(d).signatures["serving_default"]  # doctest: +SKIP
  >>> serve(context=tf.constant(["It rained."]),
  ...       choices=tf.constant([["The grass is wet.", "It was dry."]]))  # doctest: +SKIP
  {'probabilities': <... shape=(1, 2) ...>, 'label': <... [0]>, ...}
"""

import tensorflow as tf

from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving


def check_inputs(context, choices):
  """(context [batch], choices [batch, num_choices]) checked: context a
  vector, choices a matrix with one row per context, both valid UTF-8."""
  context, = raw_text_serving.check_text_inputs(context, names=["context"])
  check = tf.debugging.Assert(
      tf.equal(tf.rank(choices), 2) &
      tf.equal(tf.shape(choices)[0], tf.size(context)),
      [tf.constant("choices: expected a [batch, num_choices] batch of "
                   "strings, one row per context; got shape"),
       tf.shape(choices)])
  with tf.control_dependencies([check]):
    shape = tf.shape(choices)
  flat, = raw_text_serving.check_text_inputs(tf.reshape(choices, [-1]),
                                             names=["choices"])
  return context, tf.reshape(flat, shape)


def multiple_choice_server(model, preprocessor, chunk_size=16):
  """The `common.serving.TextServer` of a `BertMultipleChoice` and its
  `MultipleChoicePreprocessor`: serving_default(context, choices)."""

  def outputs(features, logits, texts):
    del texts
    out = model.predict_outputs(features, logits)
    out["label"] = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return out
  return serving.TextServer(
      preprocessor, model, outputs,
      signatures={"serving_default": ("context", "choices")},
      check=check_inputs, chunk_size=chunk_size,
      name="multiple_choice_server")


def server(model, preprocessor, **unused_settings):
  """The task's server (`bert_tf2.common.serving.server`)."""
  return multiple_choice_server(model, preprocessor)
