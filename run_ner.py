"""BERT fine-tuning for named-entity recognition: run_ner.py.

Thin wrapper kept at the top level so that `python run_ner.py ...` works
from a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.run_ner` (also installed as the console command
`bert-run-ner`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.run_ner import *
from bert_tf2.scripts.run_ner import main, run

if __name__ == "__main__":
  run()
