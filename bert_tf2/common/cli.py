"""Entry point wrapper for the top-level scripts.

`run(main)` is `absl.app.run(main)`, except that an `InputError` (bad flag,
file or record) is printed as one clear line, `error: <message>`, and the
script exits with status 1 instead of dumping a traceback.

    from bert_tf2.common import cli
    if __name__ == "__main__":
      flags.mark_flag_as_required("output_dir")
      cli.run(main)
"""

import os
import sys

from absl import app
from absl import logging

from bert_tf2.common.errors import InputError


def _guarded(main):
  def wrapper(argv):
    try:
      return main(argv)
    except InputError as e:
      logging.error("%s", e)
      sys.stderr.write("error: %s\n" % e)
      sys.stderr.flush()
      sys.exit(1)
  return wrapper


def run(main, argv=None):
  """Runs `main(argv)` under absl with flag parsing and clean input errors."""
  app.run(_guarded(main), argv=argv)


def require_file(flag_name, path):
  """Raises InputError unless `path` (a --flag value) is an existing file.

  Local paths are checked with os.path; only URLs (gs://, ...) import
  TensorFlow for tf.io.gfile, so that scripts that need no TensorFlow
  (evaluate_squad.py) start in a fraction of a second.
  """
  if not path:
    raise InputError("--%s is required" % flag_name)
  if "://" in path:
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    exists, isdir = tf.io.gfile.exists, tf.io.gfile.isdir
  else:
    exists, isdir = os.path.exists, os.path.isdir
  if not exists(path):
    raise InputError("--%s=%s: file not found" % (flag_name, path))
  if isdir(path):
    raise InputError("--%s=%s: is a directory, expected a file"
                     % (flag_name, path))


def expand_globs(flag_name, patterns):
  """Expands a comma-separated list of globs; every one must match a file.

  Returns:
    Sorted-per-pattern list of matching paths, in flag order.
  """
  import tensorflow as tf
  files = []
  for pattern in [p.strip() for p in patterns.split(",") if p.strip()]:
    matched = sorted(tf.io.gfile.glob(pattern))
    if not matched:
      raise InputError("--%s: %r matches no file" % (flag_name, pattern))
    files.extend(matched)
  if not files:
    raise InputError("--%s is empty" % flag_name)
  return files
