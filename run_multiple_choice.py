"""BERT fine-tuning for multiple choice (SWAG): run_multiple_choice.py.

Thin wrapper kept at the top level so that `python run_multiple_choice.py ...` works
from a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.run_multiple_choice` (also installed as the console command
`bert-run-multiple-choice`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.run_multiple_choice import *
from bert_tf2.scripts.run_multiple_choice import main, run

if __name__ == "__main__":
  run()
