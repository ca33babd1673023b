"""Python predictor: (context, choices) -> probabilities of each choice.

Example:
  >>> p = MultipleChoicePredictor(model, tokenizer, 128)     # doctest: +SKIP
  >>> p.predict("It rained all night.", ["The grass is wet.",
  ...                                    "The grass is dry."])  # doctest: +SKIP
  array([0.93, 0.07], dtype=float32)
"""

import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import raw_text_serving
from bert_tf2.multiple_choice import features as mc_features
from bert_tf2.multiple_choice.reader import MultipleChoiceExample


class MultipleChoicePredictor(object):
  """A BertMultipleChoice model with its tokenizer and max_seq_length."""

  def __init__(self, model, tokenizer, max_seq_length, batch_size=8):
    self.model = model
    self.tokenizer = tokenizer
    self.max_seq_length = int(max_seq_length)
    self.batch_size = int(batch_size)

  def predict(self, context, choices, question=None):
    """float32 numpy [len(choices)]: softmax over the choices."""
    return self.predict_examples([_example(context, choices, question)])[0]

  def predict_examples(self, examples):
    """float32 [len(examples), num_choices] for examples with the same
    number of choices (`reader.check_num_choices`)."""
    if not examples:
      return np.zeros([0, 0], np.float32)
    arrays = mc_features.examples_to_arrays(examples, self.max_seq_length,
                                            self.tokenizer)
    out = []
    for start in range(0, len(examples), self.batch_size):
      batch = {k: tf.constant(v[start:start + self.batch_size])
               for k, v in arrays.items() if k != "label_ids"}
      out.append(tf.nn.softmax(self.model(batch, training=False)).numpy())
    return np.concatenate(out, axis=0)


def _example(context, choices, question):
  """Texts as str (bytes decoded, `raw_text_serving.check_text`)."""
  context = raw_text_serving.check_text(context, "context")
  if question is not None:
    question = raw_text_serving.check_text(question, "question")
  if (isinstance(choices, (str, bytes)) or
      not isinstance(choices, (list, tuple)) or len(choices) < 2):
    raise InputError("choices: expected a list of at least 2 strings")
  choices = [raw_text_serving.check_text(c, "choices[%d]" % i)
             for i, c in enumerate(choices)]
  return MultipleChoiceExample("0", context, question, choices, None,
                               "predict")


def text_answers(model, x, batch_size):
  """[{"probabilities", "label"}] of x = (contexts, choices) or
  (contexts, questions, choices) for a multiple-choice text model: the
  model's `predict_outputs` (as the SavedModel), label the index of the
  most probable choice."""
  logits = model.predict(x, batch_size=batch_size, verbose=0)
  out = model.task.predict_outputs(None, tf.constant(logits))
  probabilities = out["probabilities"].numpy()
  return [{"probabilities": p, "label": int(np.argmax(p))}
          for p in probabilities]


def text_export(model, export_dir):
  """The multiple-choice raw-string SavedModel of a text model."""
  from bert_tf2.multiple_choice import serving  # pylint: disable=g-import-not-at-top
  pre = model.preprocessor
  return serving.write_saved_model(model.task, export_dir, pre.vocabulary,
                                   do_lower_case=pre.do_lower_case,
                                   max_seq_length=pre.max_seq_length)
