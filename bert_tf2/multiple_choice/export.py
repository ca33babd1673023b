"""Raw-string SavedModel of a fine-tuned multiple-choice model.

Signature (batch and number of choices free):
  serving_default  context: tf.string [batch],
                   choices: tf.string [batch, num_choices]
                   -> probabilities float32 [batch, num_choices] (softmax
                      over the choices), logits, label int32 [batch] (the
                      index of the most probable choice)
Each (context, choice) pair is tokenized in graph and built exactly as
`features.convert_example` (longest-first pair truncation). A question, if
any, goes at the end of the context (as the Python path does). The serving
contract of `bert_tf2.common.raw_text_serving`: an empty batch gives empty outputs,
a context that is not 1-D or choices that are not 2-D are refused, invalid
UTF-8 is refused naming the input, big batches run in chunks.

Example:
  >>> serve = tf.saved_model.load(d).signatures["serving_default"]  # doctest: +SKIP
  >>> serve(context=tf.constant(["It rained."]),
  ...       choices=tf.constant([["The grass is wet.", "It was dry."]]))  # doctest: +SKIP
  {'probabilities': <... shape=(1, 2) ...>, 'label': <... [0]>, ...}
"""

import tensorflow as tf

from bert_tf2.common import padding
from bert_tf2.common import raw_text_serving
from bert_tf2.common import saved_model
from tokenization import packing
from tokenization.tf_text import InGraphTokenizer


class MultipleChoiceServer(tf.Module):
  """Holds the model and the in-graph tokenizer; serve() is the signature."""

  def __init__(self, model, vocab_file, max_seq_length, do_lower_case=True,
               chunk_size=16):
    super().__init__(name="multiple_choice_server")
    self.model = model
    self.tokenizer = InGraphTokenizer(vocab_file, do_lower_case=do_lower_case)
    self.max_seq_length = int(max_seq_length)
    self.chunk_size = int(chunk_size)
    self.serve = tf.function(
        self._serve, input_signature=[raw_text_serving.TEXT_SPEC,
                                      raw_text_serving.TEXT_SPEC])

  def _logits(self, inputs):
    input_ids, input_mask, segment_ids = inputs
    length = tf.maximum(padding.longest_length(
        tf.reshape(input_mask, [-1, self.max_seq_length])), 2)
    feats = {"input_ids": input_ids[:, :, :length],
             "input_mask": input_mask[:, :, :length],
             "segment_ids": segment_ids[:, :, :length]}
    return self.model(feats, training=False)

  def _serve(self, context, choices):
    context, = raw_text_serving.check_text_inputs(context, names=["context"])
    check = tf.debugging.Assert(
        tf.equal(tf.rank(choices), 2) &
        tf.equal(tf.shape(choices)[0], tf.size(context)),
        [tf.constant("choices: expected a [batch, num_choices] batch of "
                     "strings, one row per context; got shape"),
         tf.shape(choices)])
    with tf.control_dependencies([check]):
      shape = tf.shape(choices)
    num_choices = shape[1]
    flat_choices, = raw_text_serving.check_text_inputs(
        tf.reshape(choices, [-1]), names=["choices"])
    flat_context = tf.repeat(context, num_choices)
    features = packing.pack_inputs(self.tokenizer.tokenize(flat_context),
                                   self.tokenizer.tokenize(flat_choices),
                                   self.max_seq_length, self.tokenizer.cls_id,
                                   self.tokenizer.sep_id)
    inputs = [tf.reshape(features[k], [-1, num_choices, self.max_seq_length])
              for k in ("input_ids", "input_mask", "segment_ids")]
    logits = raw_text_serving.call_in_chunks(self._logits, tuple(inputs),
                                             self.chunk_size)
    return {"probabilities": tf.nn.softmax(logits, axis=-1),
            "logits": logits,
            "label": tf.argmax(logits, axis=-1, output_type=tf.int32)}


def export_model(model, vocab_file, max_seq_length, export_dir,
                 do_lower_case=True, chunk_size=16, what="export_dir"):
  """Writes the raw-string SavedModel of a BertMultipleChoice atomically."""
  server = MultipleChoiceServer(model, vocab_file, max_seq_length,
                                do_lower_case, chunk_size)
  return saved_model.write_saved_model(
      server, export_dir, {"serving_default": server.serve}, what=what)
