"""Reading the line-based input files of the tasks (JSONL, CSV) with errors
that name the file and line.

Example:
  >>> import tempfile, os
  >>> path = os.path.join(tempfile.mkdtemp(), "x.jsonl")
  >>> _ = open(path, "w").write('{"a": 1}\\n\\n[2]\\n')
  >>> for number, where, obj in json_objects(path): print(number, obj)
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: ...x.jsonl: line 3: expected a JSON object
"""

import json

import tensorflow as tf

from bert_tf2.common import InputError


def read_lines(path):
  """The lines of a UTF-8 text file (local or tf.io.gfile).

  Raises:
    InputError: the file does not exist or is not UTF-8 text.
  """
  if not tf.io.gfile.exists(path):
    raise InputError("%s: file not found" % path)
  with tf.io.gfile.GFile(path, "r") as f:
    try:
      return f.read().splitlines()
    except UnicodeDecodeError as e:
      raise InputError("%s: not UTF-8 text (%s)" % (path, e)) from None


def json_objects(path):
  """Yields (N, "PATH: line N", dict) for each non-blank line N (from 1) of
  a JSONL file.

  Raises:
    InputError: as read_lines, or a line that is not a JSON object.
  """
  for number, line in enumerate(read_lines(path), start=1):
    if not line.strip():
      continue
    where = "%s: line %d" % (path, number)
    try:
      obj = json.loads(line)
    except ValueError as e:
      raise InputError("%s: not JSON (%s)" % (where, e)) from None
    if not isinstance(obj, dict):
      raise InputError("%s: expected a JSON object" % where)
    yield number, where, obj
