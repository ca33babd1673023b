"""Creates masked-LM / next-sentence TFRecords for BERT pretraining.

Thin wrapper kept at the top level so that `python create_pretraining_data.py
...` works from a checkout as with Google's original code; the flags and `main`
live in `bert_tf2.scripts.create_pretraining_data` (also installed as the
console command `bert-create-pretraining-data`).
"""

# pylint: disable=wildcard-import,unused-wildcard-import,unused-import
from bert_tf2.scripts.create_pretraining_data import *
from bert_tf2.scripts.create_pretraining_data import main, run

if __name__ == "__main__":
  run()
