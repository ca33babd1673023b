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


@pytest.mark.slow
@pytest.mark.parametrize("script", flag_snapshot.SCRIPTS)
def test_flag_names_and_defaults_unchanged(script):
  with open(SNAPSHOT) as f:
    expected = json.load(f)[script]
  assert flag_snapshot.script_flags(script) == expected
