"""The whole BERT pipeline on the small data shipped in data/, in minutes.

Thin wrapper kept at the top level so that `python quickstart.py ...` works
from a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.quickstart` (also installed as the console command
`bert-quickstart`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.quickstart import *
from bert_tf2.scripts.quickstart import main, run

if __name__ == "__main__":
  run()
