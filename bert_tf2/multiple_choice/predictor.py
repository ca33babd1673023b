"""Multiple choice's Python predictor (a `TextPredictor` of the task's
text model); `bert_tf2.models.load_predictor(output_dir)` returns one.

Example:
  >>> p = MultipleChoicePredictor(model, tokenizer, 128)     # doctest: +SKIP
  >>> p.predict("It rained all night.", ["The grass is wet.",
  ...                                    "The grass is dry."])  # doctest: +SKIP
  array([0.93, 0.07], dtype=float32)
  >>> p.predict((["It rained."], [["Wet.", "Dry."]]))        # doctest: +SKIP
  [{'probabilities': array([0.93, 0.07], dtype=float32), 'label': 0}]
"""

import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import serving
from bert_tf2.common import text_inputs
from bert_tf2.common.text_model import TextModel
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor
from bert_tf2.multiple_choice.reader import MultipleChoiceExample
from bert_tf2.multiple_choice import serving as mc_serving
from bert_tf2.predict.text import TextPredictor


class MultipleChoicePredictor(TextPredictor):
  """A `BertMultipleChoice` on raw (context, choices) through its text model.

  Args:
    model: a `BertMultipleChoice`, or its text model (tokenizer and
      max_seq_length then unused).
    tokenizer: a `tokenization.FullTokenizer` (its vocabulary and casing).
    max_seq_length: int, the pieces of each (context, choice) pair.
    batch_size: examples per model call.
  """

  def __init__(self, model, tokenizer=None, max_seq_length=None,
               batch_size=8):
    if not isinstance(model, TextModel):
      model = TextModel(MultipleChoicePreprocessor(
          list(tokenizer.vocab), do_lower_case=tokenizer.do_lower_case,
          max_seq_length=int(max_seq_length)), model)
    super().__init__(model, text_answers,
                     serving.exporter(mc_serving.server), batch_size)
    self.max_seq_length = model.preprocessor.max_seq_length

  def predict(self, context, choices=None, question=None, batch_size=None):  # pylint: disable=arguments-renamed
    """One example: float32 numpy [len(choices)], the softmax over the
    choices. With `choices` None, `context` is a batch x = (contexts,
    choices) or (contexts, questions, choices): one {"probabilities",
    "label"} per example."""
    if choices is None:
      return TextPredictor.predict(self, context, batch_size)
    return self.predict_examples([_example(context, choices, question)])[0]

  def predict_examples(self, examples):
    """float32 [len(examples), num_choices] for `MultipleChoiceExample`s
    with the same number of choices (`reader.check_num_choices`)."""
    if not examples:
      return np.zeros([0, 0], np.float32)
    x = ([e.context for e in examples], [e.question or "" for e in examples],
         [list(e.choices) for e in examples])
    return np.stack([a["probabilities"]
                     for a in TextPredictor.predict(self, x)])


def _example(context, choices, question):
  """Texts as str (bytes decoded, `text_inputs.check_text`)."""
  context = text_inputs.check_text(context, "context")
  if question is not None:
    question = text_inputs.check_text(question, "question")
  if (isinstance(choices, (str, bytes)) or
      not isinstance(choices, (list, tuple)) or len(choices) < 2):
    raise InputError("choices: expected a list of at least 2 strings")
  choices = [text_inputs.check_text(c, "choices[%d]" % i)
             for i, c in enumerate(choices)]
  return MultipleChoiceExample("0", context, question, choices, None,
                               "predict")


def text_answers(model, x, batch_size):
  """[{"probabilities", "label"}] of x = (contexts, choices) or
  (contexts, questions, choices) for a multiple-choice text model."""
  logits = model.predict(x, batch_size=batch_size, verbose=0)
  out = model.task.predict_outputs(None, tf.constant(logits))
  probabilities = out["probabilities"].numpy()
  return [{"probabilities": p, "label": int(np.argmax(p))}
          for p in probabilities]
