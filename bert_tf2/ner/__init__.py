"""Named-entity recognition with BERT (run_ner.py).

reader (CoNLL files), schemes (BIO / IOB1 / BIOES tags and conlleval's
chunks), metrics (conlleval precision/recall/F1), features (first-piece
labelling, overlapping windows), crf, model (token classifier), job (the
script's run: `job.run(settings)`), preprocessor and text_model (Keras),
serving (SavedModel) and predictor (raw text -> entity spans).
"""
