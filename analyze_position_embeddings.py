"""Analyses the position embeddings of an original-format BERT checkpoint.

Thin wrapper kept at the top level so that `python
analyze_position_embeddings.py ...` works from a checkout as with Google's
original code; the flags and `main` live in
`bert_research.scripts.analyze_position_embeddings` (also installed as the console
command `bert-analyze-position-embeddings`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_research.scripts.analyze_position_embeddings import *
from bert_research.scripts.analyze_position_embeddings import main, run

if __name__ == "__main__":
  run()
