"""Draws BERT's attention maps for a sentence (pair), per layer and head.

Thin wrapper kept at the top level so that `python visualize_attention.py ...`
works from a checkout as with Google's original code; the flags and `main` live
in `bert_research.scripts.visualize_attention` (also installed as the console
command `bert-visualize-attention`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_research.scripts.visualize_attention import *
from bert_research.scripts.visualize_attention import main, run

if __name__ == "__main__":
  run()
