"""Which of a script's flags a run of its `main` reads ("flags never lie").

`ScriptRunner(script)` imports <package>/scripts/<script>.py in this process
on a cleaned global absl FLAGS (the script defines its flags there at import
time, as under `python <script>.py`), and `run(args)` parses `args` and calls
the script's real `main` under `bert_tf2.common.cli`'s guard, recording:

  * every read of FLAGS during `main`: `FLAGS.name` (FlagValues.__getattr__)
    and `FLAGS["name"]` (FlagValues.__getitem__, e.g. `.present`), on the
    global FLAGS only;
  * for the fine-tuning scripts, which turn FLAGS into typed settings once
    (`finetune.Settings.from_flags`, which looks at every flag object and so
    reads nothing through the two methods above), the fields of those
    settings that the run read (`Settings.unread()`).

`ScriptRunner.unread()` is then the script's flags that no run read: a
flag defined and acting nowhere. On leaving, FLAGS and sys.modules are as
before, so other tests see no difference.

The flags absl and TensorFlow define for themselves are not the script's
(`FOREIGN_FLAGS`); `--preserve_unused_tokens` (tokenization/flags.py) is the
script's: it is defined once at import and stays.
"""

import contextlib
import copy
import importlib
import io
import subprocess
import sys

from absl import flags

# Defines --preserve_unused_tokens before any state is saved, so that it
# outlives every ScriptRunner (it is defined once, on first import).
from tokenization import flags as _tokenization_flags  # pylint: disable=unused-import
from tools import flag_snapshot

# Flags that absl and TensorFlow modules define on the global FLAGS when
# imported; they are never the script's, so they are kept and not checked.
FOREIGN_FLAGS = frozenset([
    # absl.logging
    "alsologtostderr", "log_dir", "logger_levels", "logtostderr",
    "showprefixforinfo", "stderrthreshold", "verbosity", "v",
    # absl.app (and its help flags, defined by app.run)
    "only_check_args", "pdb", "pdb_post_mortem", "profile_file",
    "run_with_pdb", "run_with_profiling", "use_cprofile_for_profiling",
    "help", "helpfull", "helpshort", "helpxml", "flagfile", "undefok", "?",
    # absl.testing.absltest
    "test_random_seed", "test_randomize_ordering_seed", "test_srcdir",
    "test_tmpdir", "xml_output_file",
    # tensorflow.python.ops.parallel_for.pfor
    "op_conversion_fallback_to_while_loop",
    # tensorflow.python.tpu.tensor_tracer_flags and tpu.client.client
    "delta_threshold", "tt_check_filter", "tt_single_core_summaries",
    "hbm_oom_exit", "runtime_oom_exit",
])

# Defined once by `import tokenization` (tokenization/flags.py) for every
# script, as the original's tokenization.py does: kept across scripts.
SHARED_FLAGS = frozenset(["preserve_unused_tokens"])


def _flag_state(fv):
  """A restorable copy of FlagValues' registries and its flags' values."""
  registries = {}
  for key, value in vars(fv).items():
    if isinstance(value, dict):  # name -> flag, module -> [flags]
      registries[key] = {k: list(v) if isinstance(v, list) else v
                         for k, v in value.items()}
    else:
      registries[key] = copy.copy(value)
  values = {name: (f, copy.copy(f.value), f.present, f.using_default_value)
            for name, f in fv._flags().items()}  # pylint: disable=protected-access
  return registries, values


def _restore_flag_state(fv, state):
  registries, values = state
  vars(fv).update(registries)
  for f, value, present, using_default in values.values():
    f.value, f.present, f.using_default_value = value, present, using_default


class _Recorder(object):
  """Records reads of `fv` and fields read of Settings made from flags."""

  def __init__(self, fv):
    self.fv = fv
    self.names = set()
    self.settings = []

  @contextlib.contextmanager
  def recording(self):
    from bert_tf2.finetune import settings as settings_module  # pylint: disable=g-import-not-at-top
    cls = flags.FlagValues
    get_attr, get_item = cls.__getattr__, cls.__getitem__
    settings_cls = settings_module.Settings
    from_flags = settings_cls.__dict__["from_flags"]
    recorder = self

    def getattr_recorded(fv, name):
      if fv is recorder.fv:
        recorder.names.add(name)
      return get_attr(fv, name)

    def getitem_recorded(fv, name):
      if fv is recorder.fv:
        recorder.names.add(name)
      return get_item(fv, name)

    def from_flags_recorded(klass, flag_values=flags.FLAGS):
      settings = from_flags.__func__(klass, flag_values)
      recorder.settings.append(settings)
      return settings

    cls.__getattr__, cls.__getitem__ = getattr_recorded, getitem_recorded
    settings_cls.from_flags = classmethod(from_flags_recorded)
    try:
      yield
    finally:
      cls.__getattr__, cls.__getitem__ = get_attr, get_item
      settings_cls.from_flags = from_flags

  def read(self):
    names = set(self.names)
    for settings in self.settings:
      names |= set(settings.fields()) - settings.unread()
    return names


class ScriptRunner(object):
  """Runs <package>/scripts/<script>.py's main in this process (see module):
  bert_tf2's, or bert_research's for its tools (`flag_snapshot.script_module`).

  Use as a context manager:

    with ScriptRunner("create_vocab") as runner:
      result = runner.run(["--input_file=...", ...])
      assert result.returncode == 0
      assert runner.unread() == set()
  """

  def __init__(self, script):
    self.script = script
    self.module_name = flag_snapshot.script_module(script)
    self.package_name = self.module_name.rpartition(".")[0]
    self.read = set()
    self.flag_names = set()

  def __enter__(self):
    fv = flags.FLAGS
    self._state = _flag_state(fv)
    self._module = sys.modules.pop(self.module_name, None)
    package = importlib.import_module(self.package_name)
    self._attribute = package.__dict__.pop(self.script, None)
    for name in list(fv):
      if name not in FOREIGN_FLAGS | SHARED_FLAGS:
        delattr(fv, name)
    try:
      self.module = importlib.import_module(self.module_name)
    except BaseException:
      self.__exit__(None, None, None)
      raise
    self.flag_names = set(fv) - FOREIGN_FLAGS
    return self

  def __exit__(self, *unused_exc):
    sys.modules.pop(self.module_name, None)
    package = sys.modules[self.package_name]
    package.__dict__.pop(self.script, None)
    if self._module is not None:
      sys.modules[self.module_name] = self._module
    if self._attribute is not None:
      setattr(package, self.script, self._attribute)
    _restore_flag_state(flags.FLAGS, self._state)
    return False

  def run(self, args):
    """`python <script>.py args` in this process; reads are recorded.

    Returns:
      subprocess.CompletedProcess (returncode 1 and one `error:` line on
      stderr for an InputError, as the script would exit).
    """
    from bert_tf2.common import cli  # pylint: disable=g-import-not-at-top
    from tests.reliability import fixtures  # pylint: disable=g-import-not-at-top
    fv = flags.FLAGS
    fv.unparse_flags()
    argv = fv([self.script + ".py"] + list(args))
    recorder = _Recorder(fv)
    main = self.module.main

    def recorded_main(argv):
      with recorder.recording():
        return main(argv)

    stdout, stderr = io.StringIO(), io.StringIO()
    returncode = 0
    state_kept = fixtures._process_state_kept  # pylint: disable=protected-access
    with state_kept(), contextlib.redirect_stdout(stdout), \
        contextlib.redirect_stderr(stderr):
      try:
        cli._guarded(recorded_main, fv)(argv)  # pylint: disable=protected-access
      except SystemExit as e:
        returncode = e.code if isinstance(e.code, int) else 1
    self.read |= recorder.read()
    return subprocess.CompletedProcess(argv, returncode, stdout.getvalue(),
                                       stderr.getvalue())

  def unread(self):
    """The script's flags that no run so far read."""
    return self.flag_names - self.read
