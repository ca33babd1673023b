"""Pre-trains BERT (masked LM + next sentence prediction) on TensorFlow 2.

Thin wrapper kept at the top level so that `python run_pretraining.py ...`
works from a checkout as with Google's original code; the flags and `main` live
in `bert_tf2.scripts.run_pretraining` (also installed as the console command
`bert-run-pretraining`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.run_pretraining import *
from bert_tf2.scripts.run_pretraining import main, run

if __name__ == "__main__":
  run()
