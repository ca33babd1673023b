"""BERT fine-tuning for sentence embeddings (bi-encoder): run_embedding.py.

Thin wrapper kept at the top level so that `python run_embedding.py ...` works
from a checkout as with Google's original code; the flags and `main` live in
`bert_tf2.scripts.run_embedding` (also installed as the console command
`bert-run-embedding`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.run_embedding import *
from bert_tf2.scripts.run_embedding import main, run

if __name__ == "__main__":
  run()
