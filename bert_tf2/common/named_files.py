"""The files a run's record names: inside its directory, regular, and the
bytes training wrote (sha256).

Three checks, each done before the file is read: `inside` (the file
resolves inside its directory after following every symlink, unless the
caller opted in with `allowing_outside`), `check_regular` (a FIFO would
block the read) and `check_digest` (its sha256 is the recorded one; cached
per process by the file's device, inode, size and mtime).

Example:
  >>> import tempfile
  >>> d, elsewhere = tempfile.mkdtemp(), tempfile.mkdtemp()
  >>> os.symlink(elsewhere, os.path.join(d, "link"))
  >>> inside(d, os.path.join(d, "vocab.txt"), "vocabulary") == os.path.join(d, "vocab.txt")
  True
  >>> try:
  ...   inside(d, os.path.join(d, "link", "vocab.txt"), "vocabulary")
  ... except InputError as e:
  ...   print(str(e).split(" (to ")[0].replace(d, "D"))
  D/link/vocab.txt: the vocabulary leads outside D
"""

import contextlib
import contextvars
import hashlib
import os
import stat

import tensorflow as tf

from modeling import literal_paths
from tokenization import atomic
from tokenization.errors import InputError

_OUTSIDE_ALLOWED = contextvars.ContextVar("outside_allowed", default=False)
_DIGESTS = {}  # (dev, ino, size, mtime_ns) -> sha256 hex.
_CHUNK = 1 << 22


@contextlib.contextmanager
def allowing_outside(allow=True):
  """Within: files that lead outside their directory are read (the
  loaders' `allow_outside=True`)."""
  token = _OUTSIDE_ALLOWED.set(bool(allow) or _OUTSIDE_ALLOWED.get())
  try:
    yield
  finally:
    _OUTSIDE_ALLOWED.reset(token)


def inside(directory, path, what):
  """`path` when it resolves inside `directory`; else one InputError line
  (no file opened)."""
  if not atomic.is_local(path) or _OUTSIDE_ALLOWED.get():
    return path
  root = os.path.realpath(directory)
  real = os.path.realpath(path)
  if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
    raise InputError(
        "%s: the %s leads outside %s (to %s); refused without opening it "
        "(a run's directory holds its own files; pass allow_outside=True "
        "to read a linked one)" % (path, what, directory, real))
  return path


def check_regular(path, what):
  """Raises InputError unless `path` is a regular file (not opened)."""
  if not atomic.is_local(path):
    if not tf.io.gfile.exists(path):
      raise InputError("%s: %s not found" % (path, what))
    return
  try:
    mode = os.stat(path).st_mode
  except OSError:
    raise InputError("%s: %s not found" % (path, what)) from None
  if not stat.S_ISREG(mode):
    raise InputError("%s: %s is not a regular file" % (path, what))


def sha256(path):
  """The sha256 hex digest of file `path` (cached by its stat)."""
  key = None
  if atomic.is_local(path):
    st = os.stat(path)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _DIGESTS:
      return _DIGESTS[key]
  h = hashlib.sha256()
  with tf.io.gfile.GFile(path, "rb") as f:
    while True:
      chunk = f.read(_CHUNK)
      if not chunk:
        break
      h.update(chunk)
  if key is not None:
    _DIGESTS[key] = h.hexdigest()
  return h.hexdigest()


def check_digest(path, digest, what):
  """Raises InputError unless regular file `path` has sha256 `digest`."""
  check_regular(path, what)
  if sha256(path) != digest:
    raise InputError("%s is damaged (not the %s training wrote: emptied, "
                     "cut short, overwritten or replaced); rerun the "
                     "training script on this --output_dir to rewrite it"
                     % (path, what))


def checkpoint_files(prefix):
  """[prefix.index, prefix.data-*-of-*...]: the index (whether or not it
  exists) and the data shards that exist (listed, not opened)."""
  return [prefix + ".index"] + [
      f for f in literal_paths.checkpoint_files(prefix)
      if not f.endswith(".index")]


def checkpoints_inside(folder, root):
  """Raises InputError (`inside`) unless every checkpoint of `folder` (its
  files, and the prefix its `checkpoint` state file names) resolves inside
  `root`."""
  if not atomic.is_local(folder) or not os.path.isdir(folder):
    return
  for name in sorted(os.listdir(folder)):
    if name.endswith(".index") or ".data-" in name:
      inside(root, os.path.join(folder, name), "checkpoint")
  try:
    listed = literal_paths.listed_checkpoint(folder)
  except ValueError:  # A damaged state file: the files are found by name.
    listed = None
  if listed:
    inside(root, listed + ".index", "checkpoint (named by %s)"
           % os.path.join(folder, "checkpoint"))
