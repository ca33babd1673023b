"""Readers of multiple-choice examples: SWAG's CSV and a generic JSONL.

SWAG CSV (header row; the layout of the released train/val/test files):
  video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0..3,label
Each row becomes context=sent1 and choices "sent2 ending_i" (as the BERT
paper and Hugging Face's run_swag). `label` may be absent (test files).

Generic JSONL, one object per line:
  {"context": str, "question": str (optional), "choices": [str, ...] (>= 2),
   "label": int index into choices (optional for prediction)}

Example:
  >>> import tempfile, os
  >>> path = os.path.join(tempfile.mkdtemp(), "x.jsonl")
  >>> _ = open(path, "w").write(
  ...     '{"context": "It rained.", "choices": ["wet", "dry"], "label": 0}\\n')
  >>> ex = read_jsonl(path)[0]
  >>> ex.context, ex.choices, ex.label
  ('It rained.', ['wet', 'dry'], 0)
"""

import collections
import csv

from bert_tf2.common import InputError
from bert_tf2.common import text_files

SWAG_ENDINGS = ("ending0", "ending1", "ending2", "ending3")
SWAG_COLUMNS = ("sent1", "sent2") + SWAG_ENDINGS


class MultipleChoiceExample(collections.namedtuple(
    "MultipleChoiceExample",
    ["guid", "context", "question", "choices", "label", "source"])):
  """One example: context (+ optional question), >= 2 choices, label index.

  `label` is an int index into `choices` or None (unlabelled); `source`
  names the file and row for error messages.
  """


def _label_index(value, num_choices, where):
  if value is None or (isinstance(value, str) and not value.strip()):
    return None
  if isinstance(value, bool):
    value = None
  try:
    label = int(value)
    if isinstance(value, float) and value != label:
      raise ValueError
  except (TypeError, ValueError):
    raise InputError("%s: label %r is not a choice index" % (where, value)
                     ) from None
  if not 0 <= label < num_choices:
    raise InputError("%s: label %d is outside the %d choices (0..%d)" %
                     (where, label, num_choices, num_choices - 1))
  return label


def read_swag_csv(path, require_labels=False):
  """Reads a SWAG CSV file -> list of MultipleChoiceExample (4 choices).

  Raises:
    InputError: a missing column, an empty sent1 or ending, or a label that
      is not 0..3 (or missing when `require_labels`), naming file and row.
  """
  lines = text_files.read_lines(path)
  reader = csv.DictReader(lines)
  missing = [c for c in SWAG_COLUMNS if c not in (reader.fieldnames or [])]
  if missing:
    raise InputError("%s: not a SWAG CSV file: no column %s" %
                     (path, ", ".join(missing)))
  examples = []
  for row_number, row in enumerate(reader, start=1):
    where = "%s: row %d" % (path, row_number)
    for column in SWAG_COLUMNS:
      if column != "sent2" and not (row.get(column) or "").strip():
        raise InputError("%s: %s is empty" % (where, column))
    start = (row.get("sent2") or "").strip()
    choices = [(start + " " + row[e].strip()).strip() for e in SWAG_ENDINGS]
    label = _label_index(row.get("label"), len(choices), where)
    if label is None and require_labels:
      raise InputError("%s: no label" % where)
    guid = row.get("fold-ind") or str(row_number)
    examples.append(MultipleChoiceExample(
        guid, row["sent1"].strip(), None, choices, label, where))
  return examples


def read_jsonl(path, require_labels=False):
  """Reads the generic JSONL layout -> list of MultipleChoiceExample.

  Raises:
    InputError: bad JSON, a missing context, fewer than 2 choices, an empty
      choice, or a label outside the choices, naming file and line.
  """
  examples = []
  for line_number, where, obj in text_files.json_objects(path):
    context = obj.get("context")
    if not isinstance(context, str) or not context.strip():
      raise InputError("%s: no \"context\" text" % where)
    question = obj.get("question")
    if question is not None and not isinstance(question, str):
      raise InputError("%s: \"question\" is not text" % where)
    choices = obj.get("choices")
    if not isinstance(choices, list) or len(choices) < 2:
      raise InputError("%s: \"choices\" must be a list of at least 2 texts"
                       % where)
    for i, choice in enumerate(choices):
      if not isinstance(choice, str) or not choice.strip():
        raise InputError("%s: choice %d is empty or not text" % (where, i))
    label = _label_index(obj.get("label"), len(choices), where)
    if label is None and require_labels:
      raise InputError("%s: no label" % where)
    examples.append(MultipleChoiceExample(
        str(obj.get("id", line_number)), context.strip(),
        question.strip() if question else None, list(choices), label, where))
  return examples


def read_examples(path, require_labels=False):
  """SWAG CSV (*.csv) or generic JSONL (anything else)."""
  if path.lower().endswith(".csv"):
    return read_swag_csv(path, require_labels=require_labels)
  return read_jsonl(path, require_labels=require_labels)


def check_num_choices(examples, num_choices=None):
  """Returns the common number of choices (the first example's, or
  `num_choices` if given): batches are dense [batch, num_choices, seq].

  Raises:
    InputError: naming the first example (file and row) that differs.
  """
  for ex in examples:
    if num_choices is None:
      num_choices = len(ex.choices)
    elif len(ex.choices) != num_choices:
      raise InputError("%s: %d choices where the others have %d (a batch "
                       "needs the same number of choices in every example)"
                       % (ex.source, len(ex.choices), num_choices))
  return num_choices
