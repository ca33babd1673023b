"""Experiment baselines the docs compare BERT with (not installed).

  bow_baseline  TF-IDF + logistic regression, words or characters
                (docs/classifier.md, docs/results/ner_peoples_daily.md)
  crf_baseline  a character CRF for NER (docs/ner.md,
                docs/results/ner_peoples_daily.md; extra "crf")

Run from the repository root, e.g.
`python -m bench.baselines.bow_baseline --data_dir=/tmp/movie_reviews`.
"""
