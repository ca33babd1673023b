"""Atomic output files: a reader never sees a half-written file.

Every output of the project (TFRecords, eval_results.txt, predictions, vocab
files, checkpoints' index files) is written to a temporary name beside its
final path and renamed into place only after it has been completely written
and flushed. A crash or kill mid-write leaves the previous file (or nothing)
plus a `*.tmp-*` file that is never mistaken for the output.

Local paths use `os.replace` (atomic on POSIX). Other `tf.io.gfile` schemes
(e.g. gs://) use gfile.rename with overwrite, the best those filesystems offer.

It lives here, in the lowest package (pure Python; TensorFlow only for
remote paths), so that modeling/ writes checkpoints and configs atomically
without importing bert_tf2; `bert_tf2.common` re-exports it.
"""

import contextlib
import os
import uuid


def is_local(path):
  """True for a local path (no "scheme://" prefix such as gs://)."""
  return "://" not in str(path)



def _tmp_name(path):
  return "%s.tmp-%s" % (path, uuid.uuid4().hex[:12])


# The suffix `_tmp_name` adds to a file's name (".tmp-" + 12 hex digits).
TMP_SUFFIX_LENGTH = len(".tmp-") + 12


def too_long_name(path, suffix_length=TMP_SUFFIX_LENGTH):
  """The message for a local `path` one of whose names is longer than its
  file system allows (NAME_MAX bytes, 255 on most) once the last one gets
  `suffix_length` more characters (a temporary name beside it); None if
  every name fits, and for URLs (gs://...).

  Example:
    >>> too_long_name("/tmp/" + "a" * 250, 11)
    'the name aaaaaaaaaaaaaaaaaaaaaaaa... is 250 bytes, 261 with the 11-character temporary suffix written beside it; the file system allows 255'
    >>> too_long_name("/tmp/out.txt") is None
    True
  """
  if not is_local(path):
    return None
  path = os.path.abspath(str(path))
  existing = path
  while not os.path.isdir(existing):
    existing = os.path.dirname(existing)
  try:
    limit = os.pathconf(existing, "PC_NAME_MAX")
  except (OSError, ValueError):
    limit = 255
  names = [n for n in path.split(os.sep) if n]
  for i, name in enumerate(names):
    size = len(os.fsencode(name))
    extra = suffix_length if i == len(names) - 1 else 0
    if size + extra > limit:
      shown = name[:24] + "..." if len(name) > 27 else name
      if size > limit or not extra:
        return "the name %s is %d bytes; the file system allows %d" % (
            shown, size, limit)
      return ("the name %s is %d bytes, %d with the %d-character temporary "
              "suffix written beside it; the file system allows %d"
              % (shown, size, size + extra, extra, limit))
  return None


def replace(src, dst):
  """Renames src to dst, replacing dst: atomic locally, best effort remote."""
  if is_local(dst):
    os.replace(src, dst)
  else:
    import tensorflow as tf  # Only remote filesystems need TensorFlow here.
    tf.io.gfile.rename(src, dst, overwrite=True)


def _remove_quietly(path):
  try:
    if is_local(path):
      os.remove(path)
    else:
      import tensorflow as tf
      tf.io.gfile.remove(path)
  except (OSError, Exception):  # pylint: disable=broad-except
    pass


@contextlib.contextmanager
def atomic_path(path):
  """Yields a temporary path to write; renames it to `path` on success.

  For writers that take a file name rather than a file object, e.g.
  `tf.io.TFRecordWriter`. On an exception the temporary file is removed and
  `path` is left untouched.

  Example:
    >>> import tempfile, os
    >>> out = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> with atomic_path(out) as tmp:
    ...   _ = open(tmp, "w").write("hello")
    >>> open(out).read()
    'hello'
  """
  path = str(path)
  tmp = _tmp_name(path)
  try:
    yield tmp
  except BaseException:
    _remove_quietly(tmp)
    raise
  replace(tmp, path)


@contextlib.contextmanager
def atomic_open(path, mode="w", encoding="utf-8"):
  """Opens a temporary file for writing; renames it to `path` on success.

  Args:
    path: final output path (local or any tf.io.gfile scheme).
    mode: "w" (text) or "wb" (bytes).
    encoding: text encoding for mode "w".

  Yields:
    A writable file object.
  """
  if mode not in ("w", "wb"):
    raise ValueError("atomic_open supports modes 'w' and 'wb', got %r" % mode)
  with atomic_path(path) as tmp:
    if is_local(tmp):
      kwargs = {} if "b" in mode else {"encoding": encoding, "newline": ""}
      with open(tmp, mode, **kwargs) as f:
        yield f
        f.flush()
        os.fsync(f.fileno())
    else:
      import tensorflow as tf
      with tf.io.gfile.GFile(tmp, mode) as f:
        yield f


def atomic_write_text(path, text):
  """Writes `text` (str) to `path` atomically, UTF-8."""
  with atomic_open(path, "w") as f:
    f.write(text)
