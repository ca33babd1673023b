"""Keeps TensorFlow's start-up output out of the scripts' output.

Importing TensorFlow (and tensorflow_text) prints about ten lines to stderr
from C++, some before any log level is read; a failed run should print one
line, its error. `install()` (run when `bert_tf2.scripts` is imported) sets
TF_CPP_MIN_LOG_LEVEL=3 and makes the import of `tensorflow` and
`tensorflow_text` run with file descriptor 2 on /dev/null (a Python error
in that import is still raised). A TF_CPP_MIN_LOG_LEVEL set by the user
turns it off.
"""

import contextlib
import importlib.abc
import importlib.machinery
import os
import sys

NOISY_MODULES = ("tensorflow", "tensorflow_text")
ENV = "TF_CPP_MIN_LOG_LEVEL"


@contextlib.contextmanager
def stderr_to_devnull():
  """Points file descriptor 2 (C++ and Python stderr) at /dev/null."""
  sys.stderr.flush()
  saved = os.dup(2)
  devnull = os.open(os.devnull, os.O_WRONLY)
  try:
    os.dup2(devnull, 2)
    yield
  finally:
    sys.stderr.flush()
    os.dup2(saved, 2)
    os.close(saved)
    os.close(devnull)


class _QuietLoader(importlib.abc.Loader):
  """Runs another loader's exec_module with stderr on /dev/null."""

  def __init__(self, loader):
    self._loader = loader

  def create_module(self, spec):
    return self._loader.create_module(spec)

  def exec_module(self, module):
    with stderr_to_devnull():
      self._loader.exec_module(module)

  def __getattr__(self, name):  # is_package, get_resource_reader, ...
    return getattr(self._loader, name)


class _QuietFinder(importlib.abc.MetaPathFinder):
  """Finds NOISY_MODULES as the path finder does, with a quiet loader."""

  def find_spec(self, name, path=None, target=None):
    if name not in NOISY_MODULES:
      return None
    spec = importlib.machinery.PathFinder.find_spec(name, path, target)
    if spec is not None and spec.loader is not None:
      spec.loader = _QuietLoader(spec.loader)
    return spec


def install(environ=None):
  """Quiets TensorFlow's start-up unless the user set TF_CPP_MIN_LOG_LEVEL.

  Returns:
    True if installed (no effect on modules already imported).
  """
  environ = os.environ if environ is None else environ
  if ENV in environ:
    return False
  environ[ENV] = "3"
  if not any(isinstance(f, _QuietFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _QuietFinder())
  return True
