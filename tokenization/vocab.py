"""Vocabulary files: one token per line, the line's position is its id.

`load_vocab` reads a file the way Google's tokenizer does (through TF's gfile
in text mode), so ids match the original exactly:

* lines end at "\\n"; every "\\r" is removed (gfile's text mode does this);
* each line is stripped of surrounding whitespace (Python `str.strip()`);
  a blank line is the token "" and still takes an id;
* a token seen before is skipped and does NOT take an id, so every later
  token's id is one less than its line index. This is the original's
  behaviour and is kept for parity, but it breaks the alignment of ids with
  a checkpoint's embedding rows, so each duplicate is logged as a warning;
* a UTF-8 byte-order mark at the start of the file (Windows editors write
  one) is dropped with a warning: the original keeps it in the first token
  ('\\ufeff[PAD]', which no text can ever produce). Ids are unchanged, and a
  file without a mark reads exactly as the original reads it;
* a missing file, a directory, an empty file, or a line that is not valid
  UTF-8 raises `common.InputError` naming the file (and line).

A vocabulary without "[UNK]" loads, but `FullTokenizer` warns, and converting
an unknown word's "[UNK]" to an id raises `UnknownTokenError`.

Example:
  >>> import tempfile, os
  >>> path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
  >>> _ = open(path, "w").write("[PAD]\\n[UNK]\\nhello\\n##s\\n")
  >>> dict(load_vocab(path))
  {'[PAD]': 0, '[UNK]': 1, 'hello': 2, '##s': 3}
"""

import collections
import os

from absl import logging

from tokenization.errors import InputError


_UTF8_BOM = b"\xef\xbb\xbf"
# (file, hash of its bytes) whose byte-order mark was reported.
_BOM_WARNED = set()


class UnknownTokenError(KeyError):
  """A token or id that is not in the vocabulary (a KeyError, as before)."""

  def __str__(self):
    return str(self.args[0]) if self.args else ""


def _read_bytes(vocab_file, flag_name):
  path = str(vocab_file)
  if "://" in path:
    import tensorflow as tf  # Remote filesystems (gs://...) need gfile.
    if not tf.io.gfile.exists(path):
      raise InputError("--%s=%s: file not found" % (flag_name, path))
    with tf.io.gfile.GFile(path, "rb") as f:
      return f.read()
  if not os.path.exists(path):
    raise InputError("--%s=%s: file not found" % (flag_name, path))
  if os.path.isdir(path):
    raise InputError("--%s=%s: is a directory, expected a vocab file"
                     % (flag_name, path))
  try:
    with open(path, "rb") as f:
      return f.read()
  except OSError as e:
    raise InputError("--%s=%s: cannot read: %s" % (flag_name, path, e))


def load_vocab(vocab_file, flag_name="vocab_file"):
  """Reads a vocabulary file into an OrderedDict {token: id}.

  Args:
    vocab_file: path (local or any tf.io.gfile scheme) to a UTF-8 text file.
    flag_name: the flag named in error messages.

  Returns:
    collections.OrderedDict mapping each token (str) to its int id.
  """
  data = _read_bytes(vocab_file, flag_name)
  if not data:
    raise InputError("--%s=%s: file is empty" % (flag_name, vocab_file))
  seen = (vocab_file, hash(data))
  if data.startswith(_UTF8_BOM) and seen not in _BOM_WARNED:
    # Once per file and content: a script reads its vocabulary several
    # times (checks, tokenizer, preprocessor).
    _BOM_WARNED.add(seen)
    logging.warning(
        "--%s=%s: starts with a UTF-8 byte-order mark; it is dropped (the "
        "original would read the first token as %r)", flag_name, vocab_file,
        data.split(b"\n", 1)[0].decode("utf-8", "replace").strip())
  if data.startswith(_UTF8_BOM):
    data = data[len(_UTF8_BOM):]
  lines = data.split(b"\n")
  if not lines[-1]:
    lines.pop()  # The text after the final newline, if empty, is not a line.
  vocab = collections.OrderedDict()
  first_line = {}
  for index, raw in enumerate(lines):
    try:
      line = raw.decode("utf-8")
    except UnicodeDecodeError as e:
      raise InputError("--%s=%s: line %d is not valid UTF-8 (%s)"
                       % (flag_name, vocab_file, index + 1, e.reason))
    token = line.replace("\r", "").strip()
    if token in vocab:
      logging.warning(
          "--%s=%s: line %d is a duplicate of line %d (%r); it is skipped "
          "and later ids shift down by one, as in the original tokenizer",
          flag_name, vocab_file, index + 1, first_line[token], token)
      continue
    first_line[token] = index + 1
    vocab[token] = len(vocab)
  return vocab


def convert_by_vocab(vocab, items):
  """Maps each item through `vocab` (a dict); raises UnknownTokenError."""
  try:
    return [vocab[item] for item in items]
  except KeyError:
    missing = next(item for item in items if item not in vocab)
    raise UnknownTokenError(
        "%r is not in the vocabulary (%d entries)" % (missing, len(vocab))
    ) from None


def convert_tokens_to_ids(vocab, tokens):
  """Returns the ids of `tokens` (list of str) under `vocab`."""
  return convert_by_vocab(vocab, tokens)


def convert_ids_to_tokens(inv_vocab, ids):
  """Returns the tokens of `ids` (list of int) under `inv_vocab`."""
  return convert_by_vocab(inv_vocab, ids)
