"""Sentence (pair) classification: what `run_classifier.py` is built from.

processors, glue, generic (data files -> InputExample; registry:
--task_name), reader, features (the original's names), long_text, model,
multi_label, job, pipeline (`run(options)`), serving, predictor.
See docs/classifier.md.
"""
