"""Raw SQuAD answers as users hold them -> the preprocessor's columns.

One answer per question, each a dict as SQuAD's {"text": ...,
"answer_start": ...}, the `datasets` form with lists {"text": [...],
"answer_start": [...]} (its first answer trains; all count for exact
match / F1), an (answer_start, text) pair, or None / an empty list for an
unanswerable question (answer_start -1). answer_start counts characters.

Example:
  >>> answer_columns(["ann ran", "bob"], [{"text": "ran", "answer_start": 4},
  ...                                     None])
  ([4, -1], ['ran', ''])
"""

import numpy as np

from bert_tf2.common import InputError
from bert_tf2.common import text_inputs


def pair_columns(x):
  """(questions, contexts) as two lists of str of x: a list of (question,
  context) pairs or the columns (`common.text_inputs.check_examples`).

  >>> pair_columns([("who?", "ann ran")])
  (['who?'], ['ann ran'])
  """
  pairs = text_inputs.check_examples(x, "x", text_inputs.QUESTION_CONTEXT)
  if not pairs:
    raise InputError("x: no questions (an empty list); give at least one "
                     "(the predictors answer [] for [])")
  return [q for q, _ in pairs], [c for _, c in pairs]


def _first(answer):
  """(answer_start, text) of one answer; (-1, "") for none."""
  if answer is None or (isinstance(answer, (list, tuple)) and not answer):
    return -1, ""
  if isinstance(answer, dict):
    start, text = answer.get("answer_start"), answer.get("text")
    if isinstance(text, (list, tuple)):     # The `datasets` form.
      if not text:
        return -1, ""
      start, text = start[0], text[0]
    return start, text
  if isinstance(answer, (list, tuple)) and len(answer) == 2:
    return answer
  raise InputError("y: an answer must be a dict {'text', 'answer_start'}, "
                   "an (answer_start, text) pair or None; got %r" % (answer,))


def answer_columns(contexts, answers):
  """Answers -> (answer_starts, texts), checked against their contexts.

  Raises:
    InputError: a count, type or offset is wrong (one line).
  """
  if answers is None or len(answers) != len(contexts):
    raise InputError("y: needs one answer per question (%d questions, %s "
                     "answers)" % (len(contexts), "no" if answers is None
                                   else len(answers)))
  starts, texts = [], []
  for i, (context, answer) in enumerate(zip(contexts, answers)):
    start, text = _first(answer)
    if not isinstance(start, (int, np.integer)) or not isinstance(text, str):
      raise InputError("y[%d]: answer_start must be an int and text a str, "
                       "got %r" % (i, answer))
    if start >= 0 and not text:
      raise InputError("y[%d]: empty answer text at answer_start=%d (an "
                       "unanswerable question's answer is None)" % (i, start))
    if start >= 0 and start + len(text) > len(context):
      raise InputError("y[%d]: answer %r at answer_start=%d lies outside "
                       "its context (%d characters)" % (
                           i, text, start, len(context)))
    starts.append(int(start) if start >= 0 else -1)
    texts.append(text if start >= 0 else "")
  return starts, texts


def gold_texts(answer):
  """Every gold text of one answer (for exact match and F1)."""
  if isinstance(answer, dict) and isinstance(answer.get("text"),
                                             (list, tuple)):
    return list(answer["text"])
  return [_first(answer)[1]]
