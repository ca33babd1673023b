"""Reading SQuAD v1.1 / v2.0 JSON files into `SquadExample`s.

The context of each paragraph is split on the original's whitespace (" ",
"\\t", "\\r", "\\n", U+202F) into `doc_tokens`; answer character offsets map
to words. In training mode, answers whose text cannot be found again in
their words are skipped with a warning, as the original does.

Example:
  >>> import json, tempfile
  >>> data = {"data": [{"paragraphs": [{"context": "Bob  met  Alice.",
  ...     "qas": [{"id": "q1", "question": "Who met Alice?",
  ...              "answers": [{"text": "Bob", "answer_start": 0}]}]}]}]}
  >>> path = tempfile.mktemp(suffix=".json")
  >>> _ = open(path, "w").write(json.dumps(data))
  >>> ex = read_squad_examples(path, is_training=True)[0]
  >>> ex.doc_tokens, ex.start_position, ex.end_position
  (['Bob', 'met', 'Alice.'], 0, 0)
"""

import json

from absl import logging

from bert_tf2.common import InputError
import tokenization


class SquadExample(object):
  """One question on one paragraph.

  Attributes:
    qas_id: the question's "id" (str).
    question_text: the question (str).
    doc_tokens: list of str, the whitespace-separated words of the context.
    orig_answer_text: the answer text in training mode ("" if impossible),
      else None.
    start_position, end_position: int word indexes of the answer (inclusive)
      in training mode (-1 for impossible questions), else None.
    is_impossible: bool, True for SQuAD 2.0 unanswerable questions (training).
  """

  def __init__(self, qas_id, question_text, doc_tokens, orig_answer_text=None,
               start_position=None, end_position=None, is_impossible=False):
    self.qas_id = qas_id
    self.question_text = question_text
    self.doc_tokens = doc_tokens
    self.orig_answer_text = orig_answer_text
    self.start_position = start_position
    self.end_position = end_position
    self.is_impossible = is_impossible

  def __repr__(self):
    parts = ["qas_id: %s" % self.qas_id,
             "question_text: %s" % self.question_text,
             "doc_tokens: [%s]" % " ".join(self.doc_tokens)]
    if self.start_position is not None:
      parts.append("start_position: %d" % self.start_position)
      parts.append("end_position: %d" % self.end_position)
      parts.append("is_impossible: %r" % self.is_impossible)
    return ", ".join(parts)

  __str__ = __repr__


def is_whitespace(c):
  """True for the characters the original SQuAD reader splits words on."""
  return c in (" ", "\t", "\r", "\n") or ord(c) == 0x202F


def split_context(paragraph_text):
  """(doc_tokens, char_to_word_offset): the words of a context, and per
  character the index of its word (of the preceding word for whitespace;
  -1 before the first word)."""
  doc_tokens = []
  char_to_word_offset = []
  prev_is_whitespace = True
  for c in paragraph_text:
    if is_whitespace(c):
      prev_is_whitespace = True
    else:
      if prev_is_whitespace:
        doc_tokens.append(c)
      else:
        doc_tokens[-1] += c
      prev_is_whitespace = False
    char_to_word_offset.append(len(doc_tokens) - 1)
  return doc_tokens, char_to_word_offset


def _field(obj, key, where, input_file, types=None):
  if not isinstance(obj, dict) or key not in obj:
    raise InputError("%s: %s has no %r field" % (input_file, where, key))
  value = obj[key]
  if types is not None and not isinstance(value, types):
    raise InputError("%s: %s field %r has type %s" % (
        input_file, where, key, type(value).__name__))
  return value


def _answer_span(qa, qas_id, doc_tokens, char_to_word_offset, input_file):
  """Returns (text, start_word, end_word) of a training answer, or None."""
  answer = qa["answers"][0]
  where = "question %r answer" % qas_id
  orig_answer_text = _field(answer, "text", where, input_file, str)
  answer_offset = _field(answer, "answer_start", where, input_file, int)
  answer_length = len(orig_answer_text)
  try:
    start_position = char_to_word_offset[answer_offset]
    end_position = char_to_word_offset[answer_offset + answer_length - 1]
  except IndexError:
    raise InputError(
        "%s: question %r: answer %r at answer_start=%d lies outside its "
        "context (%d characters)" % (input_file, qas_id, orig_answer_text,
                                     answer_offset, len(char_to_word_offset)))
  # Keep only answers whose text can be recovered from the words; anything
  # else is odd Unicode and is skipped, as the original does.
  actual_text = " ".join(doc_tokens[start_position:(end_position + 1)])
  cleaned_answer_text = " ".join(
      tokenization.whitespace_tokenize(orig_answer_text))
  if actual_text.find(cleaned_answer_text) == -1:
    logging.warning("Could not find answer: '%s' vs. '%s'", actual_text,
                    cleaned_answer_text)
    return None
  return orig_answer_text, start_position, end_position


def _check_unique_id(first_seen, qas_id, where, input_file):
  """Records `qas_id` in `first_seen` {str(id): where}; InputError if seen."""
  key = str(qas_id)
  if key in first_seen:
    raise InputError(
        "%s: question id %r is used twice (%s and %s); ids must be unique: "
        "predictions.json is keyed by id, one answer would be lost"
        % (input_file, qas_id, first_seen[key], where))
  first_seen[key] = where


def examples_from_json(input_data, is_training, version_2_with_negative=False,
                       input_file="<json>"):
  """SquadExamples of the parsed "data" list of a SQuAD file (Args as
  `read_squad_examples`; input_file names it in errors).

  Raises:
    InputError: a required field is missing or malformed, or two
      questions share an id.
  """
  if not isinstance(input_data, list):
    raise InputError("%s: field 'data' must be a list" % input_file)
  examples = []
  first_seen = {}  # str(id): where; JSON keys are strings, so 1 is "1".
  for entry_index, entry in enumerate(input_data):
    paragraphs = _field(entry, "paragraphs", "data[%d]" % entry_index,
                        input_file, list)
    for para_index, paragraph in enumerate(paragraphs):
      where = "data[%d].paragraphs[%d]" % (entry_index, para_index)
      paragraph_text = _field(paragraph, "context", where, input_file, str)
      qas = _field(paragraph, "qas", where, input_file, list)
      doc_tokens, char_to_word_offset = split_context(paragraph_text)
      for qa_index, qa in enumerate(qas):
        qa_where = "%s.qas[%d]" % (where, qa_index)
        qas_id = _field(qa, "id", qa_where, input_file)
        _check_unique_id(first_seen, qas_id, qa_where, input_file)
        question_text = _field(qa, "question", qa_where, input_file, str)
        start_position = end_position = orig_answer_text = None
        is_impossible = False
        if is_training:
          if version_2_with_negative:
            is_impossible = bool(_field(qa, "is_impossible", qa_where,
                                        input_file))
          answers = qa.get("answers", [])
          if len(answers) != 1 and not is_impossible:
            raise InputError(
                "%s: question %r has %d answers; for training each "
                "question needs exactly 1 answer" % (input_file, qas_id,
                                                     len(answers)))
          if is_impossible:
            orig_answer_text, start_position, end_position = "", -1, -1
          else:
            span = _answer_span(qa, qas_id, doc_tokens, char_to_word_offset,
                                input_file)
            if span is None:
              continue
            orig_answer_text, start_position, end_position = span
        examples.append(SquadExample(
            qas_id=qas_id, question_text=question_text, doc_tokens=doc_tokens,
            orig_answer_text=orig_answer_text, start_position=start_position,
            end_position=end_position, is_impossible=is_impossible))
  return examples


def read_squad_examples(input_file, is_training,
                        version_2_with_negative=False):
  """Reads a SQuAD JSON file (local or gs://) into a list of SquadExample;
  is_training: read the answers; version_2_with_negative: read
  "is_impossible". InputError: the file is missing or not SQuAD JSON."""
  return examples_from_json(read_squad_data(input_file), is_training,
                            version_2_with_negative, input_file)


def read_squad_data(input_file):
  """The "data" list of a SQuAD JSON file (local or gs://).

  Raises:
    InputError: the file is missing, not JSON, or has no "data" field.
  """
  import tensorflow as tf  # gfile reads local and gs:// paths alike.
  if not tf.io.gfile.exists(input_file):
    raise InputError("%s: file not found" % input_file)
  try:
    with tf.io.gfile.GFile(input_file, "r") as reader:
      dataset = json.loads(reader.read())
  except (ValueError, UnicodeDecodeError) as e:
    raise InputError("%s: not valid JSON (%s)" % (input_file, e))
  if not isinstance(dataset, dict) or "data" not in dataset:
    raise InputError("%s: not a SQuAD file (no top-level 'data' field)"
                     % input_file)
  return dataset["data"]
