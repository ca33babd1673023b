"""SQuAD exact match / F1 of a predictions.json (v1.1 and v2.0 definitions).

Thin wrapper kept at the top level so that `python evaluate_squad.py ...` works
from a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.evaluate_squad` (also installed as the console command
`bert-evaluate-squad`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.evaluate_squad import *
from bert_tf2.scripts.evaluate_squad import main, run

if __name__ == "__main__":
  run()
