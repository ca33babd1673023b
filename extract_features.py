"""Extract pre-computed feature vectors from BERT (original command line).

Thin wrapper kept at the top level so that `python extract_features.py ...`
works from a checkout as with Google's original code; the flags and `main` live
in `bert_tf2.scripts.extract_features` (also installed as the console command
`bert-extract-features`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.extract_features import *
from bert_tf2.scripts.extract_features import main, run

if __name__ == "__main__":
  run()
