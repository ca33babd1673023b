"""Every script's absl flags (name -> default), as JSON: the flags contract.

  python tools/flag_snapshot.py > tests/scripts_flags_snapshot.json

Each script is imported in its own process (scripts define their flags on
the global FLAGS at import time). tests/flag_snapshot_test.py compares the
committed snapshot with the current code, so a refactor cannot rename a
flag or move a default unnoticed.
"""

import json
import subprocess
import sys

SCRIPTS = ("analyze_position_embeddings", "convert_hf_checkpoint",
           "create_pretraining_data", "create_vocab", "evaluate_squad",
           "extract_features", "run_classifier", "run_embedding",
           "run_multiple_choice", "run_ner", "run_pretraining",
           "run_squad", "visualize_attention")

_DUMP = r"""
import importlib, json, sys
from absl import flags
importlib.import_module("bert_tf2.scripts." + sys.argv[1])
out = {}
for module, defined in flags.FLAGS.flags_by_module_dict().items():
  if module.startswith(("absl.", "tensorflow", "keras")):
    continue
  for flag in defined:
    default = flag.default
    out[flag.name] = default if isinstance(
        default, (str, int, float, bool, type(None))) else repr(default)
print(json.dumps(out, sort_keys=True))
"""


def script_flags(script):
  """{flag name: default} of bert_tf2/scripts/<script>.py."""
  text = subprocess.run([sys.executable, "-c", _DUMP, script], check=True,
                        capture_output=True, text=True).stdout
  return json.loads(text.strip().splitlines()[-1])


def snapshot():
  return {script: script_flags(script) for script in SCRIPTS}


if __name__ == "__main__":
  print(json.dumps(snapshot(), indent=1, sort_keys=True))
