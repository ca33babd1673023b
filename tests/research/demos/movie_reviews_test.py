"""The movie-review preparation and the demo data shipped in data/."""

import os

from bert_research.demos import movie_reviews
from bert_tf2.classifier.generic import GenericProcessor
from tests.golden import REPO_ROOT

DATA = os.path.join(REPO_ROOT, "data")


def test_binarize_split_and_fixed_shuffle(tmp_path):
  path = tmp_path / "ratings.txt"
  rows = ["id\tsentiment\ttext"] + [
      "%d\t%s\tsentence %d" % (i, r, i)
      for i, r in enumerate([2.0, -1.5, 0.2, -0.4, 0.5, -0.5, 3, -3, 1, -1],
                            start=1)]
  path.write_text("\n".join(rows) + "\n")
  splits = movie_reviews.labelled_splits(str(path))
  assert sorted(splits["dev"]) == [("neg", "sentence 10"), ("pos", "sentence 5")]
  assert len(splits["train"]) == 6  # 3 and 4 are near neutral: dropped.
  assert splits == movie_reviews.labelled_splits(str(path))
  counts = movie_reviews.write_splits(str(tmp_path / "out"), str(path))
  assert counts == {"train": 6, "dev": 2}
  proc = GenericProcessor(str(tmp_path / "out"), text_a_column="sentence",
                          label_column="label")
  assert proc.get_labels() == ["neg", "pos"]
  assert len(proc.get_dev_examples(str(tmp_path / "out"))) == 2


def test_shipped_demo_data_is_small_balanced_and_disjoint():
  total = 0
  for root, _, files in os.walk(DATA):
    total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
  assert total < 2 * 1024 * 1024
  assert "MIT" in open(os.path.join(DATA, "README.md")).read()
  d = os.path.join(DATA, "movie_reviews")
  proc = GenericProcessor(d, text_a_column="sentence", label_column="label",
                          label_list=["neg", "pos"])
  train = proc.get_train_examples(d)
  dev = proc.get_dev_examples(d)
  assert (len(train), len(dev)) == (1500, 2011)
  for examples in (train, dev):
    share = sum(e.label == "pos" for e in examples) / len(examples)
    assert 0.4 < share < 0.6
  with open(os.path.join(DATA, "corpus.txt"), encoding="utf-8") as f:
    corpus = {l.strip() for l in f if l.strip()}
  texts_train = {e.text_a for e in train}
  texts_dev = {e.text_a for e in dev}
  assert len(corpus) > 3900
  assert not texts_train & texts_dev
  assert not corpus & texts_dev

  full = GenericProcessor(d, text_a_column="sentence", label_column="label",
                          label_list=["neg", "pos"],
                          train_file="train_full.tsv").get_train_examples(d)
  assert len(full) == 8060
  assert 0.4 < sum(e.label == "pos" for e in full) / len(full) < 0.6
  # The whole train split: train.tsv first, then corpus.txt's sentences.
  assert [(e.text_a, e.label) for e in full[:1500]] == [
      (e.text_a, e.label) for e in train]
  texts_full = {e.text_a for e in full}
  assert corpus <= texts_full and not texts_full & texts_dev
