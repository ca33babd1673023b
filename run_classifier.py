"""BERT fine-tuning for sentence (pair) classification: run_classifier.py.

Thin wrapper kept at the top level so that `python run_classifier.py ...` works
from a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.run_classifier` (also installed as the console command
`bert-run-classifier`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.run_classifier import *
from bert_tf2.scripts.run_classifier import main, run

if __name__ == "__main__":
  run()
