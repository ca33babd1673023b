"""Converts Hugging Face BERT weights to an original BERT checkpoint.

Thin wrapper kept at the top level so that `python convert_hf_checkpoint.py
...` works from a checkout as with Google's original code; the flags and `main`
live in `bert_tf2.scripts.convert_hf_checkpoint` (also installed as the console
command `bert-convert-hf-checkpoint`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.convert_hf_checkpoint import *
from bert_tf2.scripts.convert_hf_checkpoint import main, run

if __name__ == "__main__":
  run()
