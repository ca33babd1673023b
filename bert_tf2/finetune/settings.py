"""Typed settings at the edge: a script's flag values, read once.

A script turns its absl FLAGS into a `Settings` object in `main`; library
code takes the settings, never the FLAGS object. Field names, types and
defaults come from the flag definitions themselves (one place per default):
absl parses each value into its flag's type.

`Settings` records which fields were read, so a test can find flags that a
script defines and never reads (tests/finetune/flags_read_test.py).

Example:
  >>> from absl import flags
  >>> def define(fv):
  ...   flags.DEFINE_integer("max_seq_length", 128, "", flag_values=fv)
  ...   flags.DEFINE_bool("do_train", False, "", flag_values=fv)
  >>> s = settings_with_defaults(define, do_train=True)
  >>> s.max_seq_length, s.do_train
  (128, True)
  >>> sorted(s.unread())
  []
  >>> s.replace(max_seq_length=64).max_seq_length
  64
  >>> sorted(s.given())
  ['do_train']
"""

import types

from absl import flags

# Flags absl and TensorFlow define for themselves: not the script's.
_FOREIGN_MODULES = ("absl.", "tensorflow", "keras")


class Settings(types.SimpleNamespace):
  """The script's flag values as attributes; remembers which were read.

  A SimpleNamespace (vars(), ==, repr work as usual) whose reads are
  recorded in a slot outside the values.
  """
  __slots__ = ("_read", "_given")

  def __init__(self, given=(), **values):
    super().__init__(**values)
    object.__setattr__(self, "_read", set())
    object.__setattr__(self, "_given", frozenset(given))

  def __getattribute__(self, name):
    if name in object.__getattribute__(self, "__dict__"):
      object.__getattribute__(self, "_read").add(name)
    return object.__getattribute__(self, name)

  def fields(self):
    """The names of all settings."""
    return sorted(vars(self))

  def replace(self, **changes):
    """A copy with `changes` (names must exist); the copy shares the record
    of reads."""
    unknown = set(changes) - set(vars(self))
    if unknown:
      raise TypeError("unknown settings: %s" % sorted(unknown))
    copy = Settings(given=self._given, **dict(vars(self), **changes))
    object.__setattr__(copy, "_read", self._read)
    return copy

  def given(self):
    """Names given explicitly (on the command line, or to
    `settings_with_defaults`), not left at their defaults."""
    return set(self._given)

  def unread(self):
    """Names never read since construction."""
    return set(vars(self)) - self._read

  @classmethod
  def from_flags(cls, flag_values=flags.FLAGS):
    """The parsed values of the script's own flags (absl's excluded)."""
    values, given = {}, set()
    for module, defined in flag_values.flags_by_module_dict().items():
      if module.startswith(_FOREIGN_MODULES):
        continue
      for flag in defined:
        values[flag.name] = flag.value
        if flag.present:
          given.add(flag.name)
    return cls(given=given, **values)


def settings_with_defaults(define_flags, **overrides):
  """Settings with the defaults `define_flags(flag_values)` declares, then
  `overrides` (unknown names raise TypeError): for library use and tests."""
  flag_values = flags.FlagValues()
  define_flags(flag_values)
  values = {name: flag_values[name].default for name in flag_values}
  unknown = set(overrides) - set(values)
  if unknown:
    raise TypeError("unknown options: %s" % sorted(unknown))
  values.update(overrides)
  return Settings(given=overrides, **values)
