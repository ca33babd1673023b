"""Every script keeps its flag names and defaults (the original command lines).

The snapshot tests/scripts_flags_snapshot.json was made by
tools/flag_snapshot.py from the code before the fine-tuning driver refactor
(issue 26); a change here must be deliberate (regenerate it and say why).
"""

import json
import os

import pytest

from tools import flag_snapshot

SNAPSHOT = os.path.join(os.path.dirname(__file__),
                        "scripts_flags_snapshot.json")


@pytest.fixture(scope="module")
def current():
  """{script: {flag: default}} of the code now: one dumping process for
  every script (TensorFlow imported once, a forked child per script)."""
  return flag_snapshot.snapshot()


@pytest.mark.parametrize("script", flag_snapshot.SCRIPTS)
def test_flag_names_and_defaults_unchanged(script, current):
  with open(SNAPSHOT) as f:
    expected = json.load(f)[script]
  assert current[script] == expected


def test_one_script_alone_equals_its_part_of_the_snapshot(current):
  # A script imported after the others in one dumping process sees no flag
  # of theirs: each child starts from the parent's fresh FLAGS.
  assert flag_snapshot.script_flags("create_vocab") == current["create_vocab"]
