"""Paths that TensorFlow's readers must not take for glob patterns.

TensorFlow's checkpoint reader (`tf.train.load_checkpoint`, and the restore
of a SavedModel's variables) matches its prefix as a glob pattern, and
`tf.train.latest_checkpoint` globs the prefix's ".index": a directory such
as `run[1]` (where "[1]" is a character class matching "1") is written
fine but never read back. This module is the one place that works around
it, without globbing anything the user gave as a literal path:

  * `checkpoint_files(prefix)`: the index and data files of a prefix, by
    listing its directory (no pattern);
  * `load_checkpoint(prefix)`: a reader of the checkpoint; for a local
    prefix with glob characters it reads through symbolic links under a
    fresh temporary directory (alias "ckpt"), kept until the process exits;
  * `saved_model_dir(path)`: the same alias for a SavedModel directory;
  * `load_saved_model(path)`: `tf.saved_model.load` of that alias (what
    docs/prediction.md tells users to call for such directories);
  * `listed_checkpoint(directory)`: the prefix the `checkpoint` state file
    names, if its index exists (tf.train.latest_checkpoint without a glob);
  * `real_text(text)`: an error message with the aliases replaced by the
    user's paths.

Example:
  >>> has_glob_chars("out/run[1]/model.ckpt-3"), has_glob_chars("a b/é")
  (True, False)
"""

import atexit
import codecs
import os
import re
import shutil
import tempfile

import tensorflow as tf

_GLOB_CHARS = re.compile(r"[\[\]*?]")
_DATA_RE = re.compile(r"\.data-\d+-of-\d+")
_STATE_RE = re.compile(r'(model_checkpoint_path|all_model_checkpoint_paths):'
                       r'\s*"((?:[^"\\]|\\.)+)"$')
_TIMESTAMP_RE = re.compile(r"(all_model_checkpoint_timestamps|"
                           r"last_preserved_timestamp):\s*[-+0-9.eE]+$")
# {alias path: the user's path}, for messages; the alias directories are
# removed at exit.
_ALIASES = {}


def has_glob_chars(path):
  """True if `path` holds a glob character ([, ], *, ?)."""
  return bool(_GLOB_CHARS.search(str(path)))


def _needs_alias(path):
  return has_glob_chars(path) and "://" not in str(path)


def checkpoint_files(prefix):
  """[prefix.index, prefix.data-...] that exist, found without a pattern.

  Example:
    >>> checkpoint_files("/no/such/dir/model.ckpt-1")
    []
  """
  prefix = str(prefix)
  directory, base = os.path.split(prefix)
  try:
    names = tf.io.gfile.listdir(directory or ".")
  except tf.errors.NotFoundError:
    return []
  index = [prefix + ".index"] if base + ".index" in names else []
  data = sorted(os.path.join(directory, n) for n in names
                if n.startswith(base) and _DATA_RE.fullmatch(n[len(base):]))
  return index + data


def _alias_dir():
  directory = tempfile.mkdtemp(prefix="bert-literal-")
  atexit.register(shutil.rmtree, directory, True)
  return directory


def _alias(path, alias):
  _ALIASES[alias] = str(path)
  return alias


def load_checkpoint(prefix):
  """tf.train.load_checkpoint(prefix), reading `prefix` literally.

  Raises what TensorFlow's reader raises (tf.errors.OpError, ValueError).
  """
  prefix = str(prefix)
  if not _needs_alias(prefix):
    return tf.train.load_checkpoint(prefix)
  directory = _alias_dir()
  for path in checkpoint_files(prefix):
    os.symlink(os.path.abspath(path),
               os.path.join(directory, "ckpt" + path[len(prefix):]))
  alias = _alias(prefix, os.path.join(directory, "ckpt"))
  return tf.train.load_checkpoint(alias)


def saved_model_dir(path):
  """A path to the SavedModel directory `path` that TensorFlow reads
  literally (`path` itself unless it is local and holds glob characters)."""
  path = str(path).rstrip("/")
  if not _needs_alias(path):
    return path
  alias = os.path.join(_alias_dir(), "saved_model")
  os.symlink(os.path.abspath(path), alias)
  return _alias(path, alias)


def load_saved_model(path, **kwargs):
  """`tf.saved_model.load(path, **kwargs)`, reading `path` literally: a
  local export directory such as "run[1]/export" loads (TensorFlow globs
  the variables path, so `tf.saved_model.load` itself fails there, naming
  no cause). `real_text` turns the alias in an error back into `path`.
  """
  return tf.saved_model.load(saved_model_dir(path), **kwargs)


def real_text(text):
  """`text` with every alias path replaced by the user's path."""
  text = str(text)
  for alias, real in _ALIASES.items():
    text = text.replace(alias, real)
  return text


def read_state(directory):
  """(model_checkpoint_path, [all_model_checkpoint_paths]) of the
  `checkpoint` state file of `directory` as written, or None if it has none.

  Raises:
    ValueError: the state file is empty, cut short or garbage (the reason).

  Example:
    >>> read_state("/no/such/dir") is None
    True
  """
  path = os.path.join(str(directory), "checkpoint")
  try:
    with tf.io.gfile.GFile(path, "rb") as f:
      data = f.read()
  except tf.errors.NotFoundError:
    return None
  try:
    text = data.decode("utf-8")
  except UnicodeDecodeError:
    raise ValueError("%s is not text" % path) from None
  # Quoted as text_format writes them: \" \\ and octal escapes.
  unquote = lambda q: codecs.escape_decode(q.encode("utf-8"))[0].decode(
      "utf-8", "replace")
  fields = {"model_checkpoint_path": [], "all_model_checkpoint_paths": []}
  for line in text.splitlines():
    m = _STATE_RE.match(line.strip())
    if m is None:
      if line.strip() and not _TIMESTAMP_RE.match(line.strip()):
        raise ValueError("%s: not a checkpoint state file (line %r)"
                         % (path, line.strip()[:40]))
      continue
    fields[m.group(1)].append(unquote(m.group(2)))
  if len(fields["model_checkpoint_path"]) != 1:
    raise ValueError("%s names no model_checkpoint_path" % path)
  return fields["model_checkpoint_path"][0], fields[
      "all_model_checkpoint_paths"]


def listed_checkpoint(directory):
  """The checkpoint the `checkpoint` state file of `directory` names, or
  None (no state file, or its checkpoint has no index file).

  Raises:
    ValueError: the state file is empty, cut short or garbage (the reason).

  Example:
    >>> listed_checkpoint("/no/such/dir") is None
    True
  """
  state = read_state(directory)
  if state is None:
    return None
  prefix = state[0]
  if not os.path.isabs(prefix) and "://" not in prefix:
    prefix = os.path.join(str(directory), prefix)
  return prefix if tf.io.gfile.exists(prefix + ".index") else None
