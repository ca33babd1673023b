"""Named-entity recognition with BERT (run_ner.py).

reader (CoNLL files), schemes (BIO / IOB1 / BIOES tags and conlleval's
chunks), metrics (conlleval precision/recall/F1), features (first-piece
labelling, overlapping windows), task and model (token classifier), merge
(windows back to words), job (the script's run: `job.run(settings)`,
`flags.default_options`), export (SavedModel
and raw text -> entity spans). The People's Daily builder of docs/ner.md
is a demo (bert_research.demos); its CRF baseline is in bench/baselines/.
"""
