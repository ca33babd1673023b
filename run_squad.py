"""Fine-tune BERT on SQuAD 1.1 / 2.0 and predict answers (original flags).

Thin wrapper kept at the top level so that `python run_squad.py ...` works from
a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.run_squad` (also installed as the console command `bert-run-
squad`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.run_squad import *
from bert_tf2.scripts.run_squad import main, run

if __name__ == "__main__":
  run()
