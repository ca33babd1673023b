"""Every script's absl flags (name -> default), as JSON: the flags contract.

  python tools/flag_snapshot.py > tests/scripts_flags_snapshot.json

Each script is imported in its own process (scripts define their flags on
the global FLAGS at import time): one dumping process imports TensorFlow
once, then forks a child per script that imports the script and prints its
flags, so every script still starts from the same fresh FLAGS without
paying TensorFlow's import (several seconds of CPU) once per script. tests/flag_snapshot_test.py compares the
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
# The research tools' mains live beside the library, in bert_research.
RESEARCH_SCRIPTS = ("analyze_position_embeddings", "visualize_attention")


def script_module(script):
  """The module holding `script`'s flags and main.

  >>> script_module("run_classifier")
  'bert_tf2.scripts.run_classifier'
  >>> script_module("visualize_attention")
  'bert_research.scripts.visualize_attention'
  """
  package = "bert_research" if script in RESEARCH_SCRIPTS else "bert_tf2"
  return "%s.scripts.%s" % (package, script)

_DUMP = r"""
import importlib, json, os, sys
from absl import flags
import tensorflow  # Imported once, before the forks: the costly part.

def dump(script, module):
  importlib.import_module(module)
  out = {}
  for module, defined in flags.FLAGS.flags_by_module_dict().items():
    if module.startswith(("absl.", "tensorflow", "keras")):
      continue
    for flag in defined:
      default = flag.default
      out[flag.name] = default if isinstance(
          default, (str, int, float, bool, type(None))) else repr(default)
  return out

for script, module in zip(sys.argv[1::2], sys.argv[2::2]):
  sys.stdout.flush()
  pid = os.fork()
  if pid == 0:  # The child: a fresh FLAGS, the script's import, its flags.
    status = 1
    try:
      print(json.dumps([script, dump(script, module)], sort_keys=True),
            flush=True)
      status = 0
    finally:
      os._exit(status)
  _, status = os.waitpid(pid, 0)
  if status:
    sys.exit("importing %s failed (status %d)" % (script, status))
"""


def scripts_flags(scripts=SCRIPTS):
  """{script: {flag name: default}} of <package>/scripts/<script>.py
  (`script_module`) for each of `scripts`, each imported in a process of
  its own."""
  argv = [arg for script in scripts for arg in (script, script_module(script))]
  text = subprocess.run([sys.executable, "-c", _DUMP] + argv,
                        check=True, capture_output=True, text=True).stdout
  found = dict(json.loads(line) for line in text.splitlines()
               if line.startswith("["))
  assert sorted(found) == sorted(scripts), (sorted(found), scripts)
  return found


def script_flags(script):
  """{flag name: default} of `script_module(script)`."""
  return scripts_flags([script])[script]


def snapshot():
  return scripts_flags(SCRIPTS)


if __name__ == "__main__":
  print(json.dumps(snapshot(), indent=1, sort_keys=True))
