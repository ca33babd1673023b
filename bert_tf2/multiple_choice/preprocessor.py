"""Raw (context, choices) -> multiple-choice features [batch, choices, seq].

`MultipleChoicePreprocessor` is a Keras layer that encodes every (context,
choice) pair in graph as `features.convert_example` does. Inputs:
`(contexts, choices)` or `(contexts, questions, choices)`, with contexts
and questions tf.string [batch] and choices tf.string [batch,
num_choices]. Outputs: int32 input_ids, input_mask, segment_ids [batch,
num_choices, seq].

Example:
  >>> pre = MultipleChoicePreprocessor(
  ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "c"],
  ...     max_seq_length=6)
  >>> pre((tf.constant(["a a"]), tf.constant([["b", "c"]])))[
  ...     "input_ids"].numpy().tolist()
  [[[2, 4, 4, 3, 5, 3], [2, 4, 4, 3, 6, 3]]]
"""

import keras
import tensorflow as tf

import modeling
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.common.text_model import TextModel
from modeling import layers

FEATURES = ("input_ids", "input_mask", "segment_ids")


@layers.serializable
class MultipleChoicePreprocessor(BertPreprocessor):
  """(contexts [, questions], choices) -> int32 [batch, choices, seq]."""

  def call(self, inputs):
    if len(inputs) == 3:
      contexts, questions, choices = inputs
    else:
      (contexts, choices), questions = inputs, None
    flat = lambda t: tf.reshape(tf.convert_to_tensor(t, tf.string), [-1])
    contexts = flat(contexts)
    if questions is not None:  # features.first_text
      questions = flat(questions)
      contexts = tf.where(tf.strings.length(questions) > 0,
                          contexts + " " + questions, contexts)
    choices = tf.convert_to_tensor(choices, tf.string)
    num_choices = tf.shape(choices)[1]
    text_a = tf.repeat(contexts, num_choices)
    text_b = tf.reshape(choices, [-1])
    seq = self.max_seq_length
    pair = self.tokenizer.bert_inputs(text_a, text_b, max_seq_length=seq)
    # A choice without tokens: [CLS] a [SEP], a still cut to seq - 3.
    single = self.tokenizer.bert_inputs(text_a, None, max_seq_length=seq - 1)
    has_b = self.tokenizer.tokenize(text_b).row_lengths() > 0
    out = {}
    for k in FEATURES:
      padded = tf.pad(single[k], [[0, 0], [0, 1]])
      value = tf.where(has_b[:, tf.newaxis], pair[k], padded)
      out[k] = tf.reshape(value, [-1, num_choices, seq])
    return out

  def compute_output_spec(self, inputs):
    shape = (None, None, self.max_seq_length)
    return {k: keras.KerasTensor(shape, "int32") for k in FEATURES}


def build(cls, directory, max_seq_length=128, do_lower_case=None, **kwargs):
  """`TextModel` of `cls.from_checkpoint(directory, **kwargs)`."""
  task = cls.from_checkpoint(directory, do_lower_case=do_lower_case,
                             **kwargs)
  found = task.pretrained
  modeling.check_sequence_length(found.config, max_seq_length)
  preprocessor = MultipleChoicePreprocessor(
      found.vocab_file, do_lower_case=found.do_lower_case,
      max_seq_length=max_seq_length)
  return TextModel(preprocessor, task)
