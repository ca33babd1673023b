"""Writing a SavedModel of a fine-tuned task model, atomically.

`save_atomically` saves a `tf.Module` with its signatures to
`export_dir + ".tmp-export"` and renames it into place, so a failed export
never leaves a half-written model; an existing directory is replaced only
if it is a SavedModel.

`load_saved_model(path)` (from `modeling.literal_paths`) loads an export as
`tf.saved_model.load` does, also from a path holding [, ], * or ?.

Example:
  >>> import os, tempfile
  >>> root = tempfile.mkdtemp()
  >>> module = tf.Module()
  >>> module.double = tf.function(lambda x: 2 * x,
  ...     input_signature=[tf.TensorSpec([None], tf.float32)])
  >>> path = save_atomically(module, os.path.join(root, "m"),
  ...                        {"serving_default": module.double},
  ...                        extra_files={"note.txt": "hi"})
  >>> sorted(os.listdir(path))[:2], open(os.path.join(path, "note.txt")).read()
  (['assets', 'fingerprint.pb'], 'hi')
  >>> try:
  ...   save_atomically(module, root, {}, what="--export_dir")
  ... except InputError as e:
  ...   print(str(e).split(";")[0].replace(root, "ROOT"))
  --export_dir=ROOT exists and is not a SavedModel
"""

import os
import tempfile

from absl import logging
import tensorflow as tf

import modeling
from modeling.literal_paths import load_saved_model  # For users.
from tokenization import atomic
from tokenization import flags as tokenization_flags
from tokenization.errors import InputError

# Beside export_dir: the new export, then the previous one (save_atomically).
TMP_SUFFIX = ".tmp-export"
OLD_SUFFIX = ".old-export"


def restore_model(task, checkpoint):
  """`task.build_model()` with the weights of `checkpoint` (prefix or dir)."""
  model = task.build_model()
  modeling.init_from_checkpoint(model, checkpoint, flag="export checkpoint")
  return model


def save_atomically(module, export_dir, signatures, what="export_dir",
                      extra_files=None):
  """Saves `module` with `signatures` to export_dir atomically.

  Args:
    module: the tf.Module (holding the model) to save.
    export_dir: where to write; replaced if it is a SavedModel.
    signatures: {name: tf.function with an input signature}.
    what: how error messages name export_dir (e.g. "--export_dir").
    extra_files: optional {file name: text} written beside saved_model.pb.

  Returns:
    export_dir (without a trailing "/").

  Raises:
    InputError: export_dir exists and is not a SavedModel.
  """
  export_dir = str(export_dir).rstrip("/")
  check_export_name(what, export_dir)
  _check_replaceable(what, export_dir)
  tmp = export_dir + TMP_SUFFIX
  if tf.io.gfile.exists(tmp):
    tf.io.gfile.rmtree(tmp)
  try:
    tf.saved_model.save(module, tmp, signatures=signatures)
    for name, text in (extra_files or {}).items():
      with tf.io.gfile.GFile(os.path.join(tmp, name), "w") as f:
        f.write(text)
  except BaseException:  # A full disk, Ctrl-C: free what was written.
    _remove_quietly(tmp)
    raise
  # The previous export is moved aside until the new one is in place: a
  # kill leaves a complete SavedModel at export_dir or its ".old-export".
  old = export_dir + OLD_SUFFIX
  if tf.io.gfile.exists(export_dir):
    if tf.io.gfile.exists(old):
      tf.io.gfile.rmtree(old)
    tf.io.gfile.rename(export_dir, old)
  tf.io.gfile.rename(tmp, export_dir)
  if tf.io.gfile.exists(old):
    tf.io.gfile.rmtree(old)
  logging.info("SavedModel written to %s", export_dir)
  return export_dir


def _remove_quietly(path):
  """Removes directory `path` if it exists; an error doing so is logged
  (the caller is raising the error that matters)."""
  try:
    if tf.io.gfile.exists(path):
      tf.io.gfile.rmtree(path)
  except (OSError, tf.errors.OpError) as e:
    logging.warning("Could not remove the partial export %s: %s", path, e)


def check_export_dir(export_dir):
  """export_dir without a trailing "/", if it is new or a SavedModel.

  Raises:
    InputError: export_dir exists and is not a SavedModel, its parent is
      not writable, or --preserve_unused_tokens=true.
  """
  tokenization_flags.refuse_preserve_unused_tokens_with_export(export_dir)
  export_dir = str(export_dir).rstrip("/")
  check_export_name("--export_dir", export_dir)
  _check_replaceable("export_dir", export_dir)
  check_writable_parent("export_dir", export_dir)
  return export_dir


def _check_replaceable(what, export_dir):
  if (tf.io.gfile.exists(export_dir) and
      not tf.io.gfile.exists(os.path.join(export_dir, "saved_model.pb"))):
    raise InputError("%s=%s exists and is not a SavedModel; not replacing it"
                     % (what, export_dir))


def check_export_name(what, export_dir):
  """Refuses an export_dir whose name, with the ".tmp-export" /
  ".old-export" suffix, is longer than the file system allows.

  Raises:
    InputError: naming `what` (e.g. "--export_dir") and the name.
  """
  problem = atomic.too_long_name(export_dir, max(len(TMP_SUFFIX),
                                                 len(OLD_SUFFIX)))
  if problem:
    raise InputError("%s=%s: %s" % (what, export_dir, problem))


def check_writable_parent(flag, path):
  """Refuses a local `path` whose directory cannot be written, before
  training: makes (and removes) a directory in the nearest existing
  ancestor. URLs (gs://...) are not checked.

  Raises:
    InputError: naming the flag, the directory and the reason.
  """
  if "://" in path:
    return
  parent = os.path.dirname(os.path.abspath(path))
  while not os.path.exists(parent):
    parent = os.path.dirname(parent)
  if not os.path.isdir(parent):
    raise InputError("--%s=%s: %s is not a directory" % (flag, path, parent))
  try:
    os.rmdir(tempfile.mkdtemp(prefix=".write-check-", dir=parent))
  except OSError as e:
    raise InputError("--%s=%s: cannot write in %s: %s"
                     % (flag, path, parent, e.strerror or e))
