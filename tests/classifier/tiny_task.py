"""A tiny learnable tsv task for the classifier pipeline tests.

Sentences of the words w0..w39 (positive ones contain "alpha"), the
vocabulary SPECIALS + WORDS + ["alpha"] and a 2-layer, hidden-32 config
without dropout.
"""

import json
import os

from tests.reliability import fixtures

WORDS = ["w%d" % i for i in range(40)]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = SPECIALS + WORDS + ["alpha"]
CONFIG = fixtures.config_dict(
    vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
    intermediate_size=64, hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0, max_position_embeddings=64)


def write_tsv(path, header, rows):
  """Writes a header line and rows of tab-separated fields (UTF-8)."""
  with open(path, "w", encoding="utf-8") as f:
    f.write("\t".join(header) + "\n")
    for row in rows:
      f.write("\t".join(row) + "\n")


def write_model_files(root):
  """Writes root/vocab.txt (VOCAB) and root/bert_config.json (CONFIG);
  returns their paths."""
  vocab_file = os.path.join(root, "vocab.txt")
  with open(vocab_file, "w") as f:
    f.write("\n".join(VOCAB) + "\n")
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(CONFIG, f)
  return vocab_file, config_file
