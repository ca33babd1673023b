"""Reading delimited text files with errors that name the file and line.

A file is decoded up front (UTF-8, BOM tolerated) and each row keeps its
1-based line number.

Example:
  >>> import os, tempfile
  >>> path = os.path.join(tempfile.mkdtemp(), "train.tsv")
  >>> _ = open(path, "w").write("a\\tb\\nc\\td\\n")
  >>> [(r.line, r.fields) for r in read_rows(path)]
  [(1, ['a', 'b']), (2, ['c', 'd'])]
"""

import csv
import io
import os
import sys

from bert_tf2.common import InputError

# Let a single field hold a whole document (csv's default cap is 128 KiB).
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


class Row(object):
  """One parsed record: `fields` (list of str) from `path` at `line` (1-based)."""

  __slots__ = ("path", "line", "fields")

  def __init__(self, path, line, fields):
    self.path = path
    self.line = line
    self.fields = fields

  def where(self):
    return "%s line %d" % (self.path, self.line)

  def get(self, index, what="a column"):
    """Returns field `index` (negative counts from the end) or InputError."""
    n = len(self.fields)
    if -n <= index < n:
      return self.fields[index]
    wanted = index + 1 if index >= 0 else -index
    raise InputError(
        "%s: expected at least %d columns (%s is column %d), "
        "found %d" % (self.where(), wanted, what, index, n))


def read_text(path):
  """Reads `path` (local or gs://...) as UTF-8 text; InputError on bad bytes."""
  path = str(path)
  if "://" in path:
    import tensorflow as tf  # Only remote filesystems need gfile.
    exists, isdir, opener = tf.io.gfile.exists, tf.io.gfile.isdir, (
        lambda p: tf.io.gfile.GFile(p, "rb"))
  else:
    exists, isdir, opener = os.path.exists, os.path.isdir, (
        lambda p: open(p, "rb"))
  if not exists(path):
    raise InputError("%s: file not found" % path)
  if isdir(path):
    raise InputError("%s: is a directory, expected a file" % path)
  with opener(path) as f:
    data = f.read()
  try:
    text = data.decode("utf-8")
  except UnicodeDecodeError as e:
    line = data.count(b"\n", 0, e.start) + 1
    raise InputError("%s line %d: not valid UTF-8 (byte 0x%02x at offset %d)"
                     % (path, line, data[e.start], e.start)) from None
  if text.startswith("\ufeff"):
    text = text[1:]
  return text


def read_rows(path, delimiter="\t", quotechar=None):
  """Parses a delimited file into a list of `Row`s, skipping empty lines
  (quotechar None: no quoting, as the original reads GLUE TSVs); InputError
  if the file is missing, not UTF-8, or not parseable."""
  text = read_text(path)
  reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                      quotechar=quotechar)
  rows = []
  start = 1
  try:
    for fields in reader:
      if fields:
        rows.append(Row(path, start, fields))
      start = reader.line_num + 1
  except csv.Error as e:
    raise InputError("%s line %d: %s" % (path, reader.line_num, e)) from None
  return rows
