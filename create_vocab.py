"""Learns a BERT WordPiece vocab.txt from text in pretraining input format.

Thin wrapper kept at the top level so that `python create_vocab.py ...` works
from a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.create_vocab` (also installed as the console command
`bert-create-vocab`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.create_vocab import *
from bert_tf2.scripts.create_vocab import main, run

if __name__ == "__main__":
  run()
