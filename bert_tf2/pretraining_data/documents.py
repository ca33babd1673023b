"""Reading the raw corpus: lines -> documents of tokenized sentences.

Lines are read as the original's tf.gfile `readline` reads them: split on
b"\\n" only, every b"\\r" deleted, decoded as UTF-8 and stripped; a blank
line ends a document, even across file boundaries. Undecodable bytes are
dropped and counted (the original crashes on them under Python 3); see
docs/pretraining_data.md, "Same seed, same instances".

Example:
  >>> stats = CorpusStats()
  >>> list(iter_lines_from_bytes([b"Hello world.\\n", b"\\xffBy\\re\\r\\n"],
  ...                            stats))
  ['Hello world.', 'Bye']
  >>> stats.undecodable_bytes
  1
"""

import os
import time

from absl import logging

from bert_tf2.common import InputError


class CorpusStats(object):
  """Counters accumulated while reading and while creating instances."""

  FIELDS = ("files", "lines", "documents", "sentences", "tokens",
            "undecodable_bytes", "instances", "instance_tokens",
            "masked_tokens")

  def __init__(self):
    for name in self.FIELDS:
      setattr(self, name, 0)

  def to_dict(self):
    return {name: getattr(self, name) for name in self.FIELDS}


def iter_lines_from_bytes(raw_lines, stats):
  """Yields stripped, decoded lines from an iterable of raw byte lines.

  A final line of carriage returns only reads as end of file, as with
  tf.gfile.
  """
  for raw in raw_lines:
    if b"\r" in raw:
      raw = raw.replace(b"\r", b"")
      if not raw:
        continue
    stats.lines += 1
    try:
      text = raw.decode("utf-8")
    except UnicodeDecodeError:
      text = raw.decode("utf-8", "ignore")
      stats.undecodable_bytes += len(raw) - len(text.encode("utf-8"))
    yield text.strip()


def _raw_lines(path, flag_name):
  """Yields the raw b"\\n"-terminated lines of `path` (bytes)."""
  try:
    if "://" in path:
      import tensorflow as tf  # Remote filesystems (gs://...) need gfile.
      f = tf.io.gfile.GFile(path, "rb")
    else:
      f = open(path, "rb")  # pylint: disable=consider-using-with
  except (OSError, IOError) as e:
    raise InputError("--%s: cannot read %s: %s" % (flag_name, path, e))
  try:
    with f:
      # Both iterate by readline(): split on b"\n" only.
      for line in f:
        yield line
  except (OSError, IOError) as e:
    raise InputError("--%s: error reading %s: %s" % (flag_name, path, e))


def iter_lines(input_files, stats, flag_name="input_file", raw_lines=None):
  """Yields the stripped decoded lines of all `input_files`, in order.

  raw_lines: path, flag_name -> the file's raw byte lines (the Beam pipeline
  passes Beam's filesystems).
  """
  raw_lines = raw_lines or _raw_lines
  for path in input_files:
    stats.files += 1
    for line in iter_lines_from_bytes(raw_lines(path, flag_name), stats):
      yield line


def iter_document_lines(lines):
  """Groups stripped lines into documents (lists of non-empty lines).

  Callers drop documents that tokenize to nothing, as the original does.

  Example:
    >>> list(iter_document_lines(["a", "b", "", "", "c"]))
    [['a', 'b'], ['c']]
  """
  current = []
  for line in lines:
    if not line:
      if current:
        yield current
      current = []
    else:
      current.append(line)
  if current:
    yield current


def tokenize_document(lines, tokenize_ids, stats):
  """Tokenizes one document's lines (str) with `tokenize_ids`, dropping lines
  that give no tokens; returns its sentences (lists of ids), maybe none."""
  document = []
  for line in lines:
    ids = tokenize_ids(line)
    if ids:
      document.append(ids)
      stats.tokens += len(ids)
  stats.sentences += len(document)
  return document


def read_documents(input_files, tokenize_ids, stats):
  """Reads and tokenizes the whole corpus in the original's document order.

  Returns:
    list of documents; each a non-empty list of non-empty lists of token ids.
  """
  documents = []
  last_log = time.time()
  for lines in iter_document_lines(iter_lines(input_files, stats)):
    document = tokenize_document(lines, tokenize_ids, stats)
    if document:
      documents.append(document)
      if len(documents) % 256 == 0 and (
          time.time() - last_log >= 30.0):
        last_log = time.time()
        logging.info("reading: %d lines, %d documents, %d tokens",
                     stats.lines, len(documents), stats.tokens)
  stats.documents += len(documents)
  return documents


def expand_input_patterns(flag_name, patterns):
  """Expands comma-separated globs in tf.gfile.Glob's order, unsorted as in
  the original (file order decides the instances)."""
  files = []
  for pattern in patterns.split(","):
    if not pattern:
      continue
    matched = _glob(pattern)
    if not matched:
      raise InputError("--%s: %r matches no file" % (flag_name, pattern))
    for path in matched:
      if isdir(path):
        raise InputError("--%s: %s is a directory, expected a text file"
                         % (flag_name, path))
      if "://" not in path and not os.access(path, os.R_OK):
        raise InputError("--%s: %s is not readable" % (flag_name, path))
    files.extend(matched)
  if not files:
    raise InputError("--%s is empty" % flag_name)
  return files


def _glob(pattern):
  if "://" not in pattern and (os.path.exists(pattern) or
                               not any(c in pattern for c in "*?[")):
    # A plain local path, or a file whose name holds [, *, ?: itself
    # (tf.gfile.Glob would read "run[1]" as a pattern), without importing TF.
    return [pattern] if os.path.exists(pattern) else []
  import tensorflow as tf
  return tf.io.gfile.glob(pattern)


def isdir(path):
  if "://" not in path:
    return os.path.isdir(path)
  import tensorflow as tf
  return tf.io.gfile.isdir(path)
