"""bert_research: the learners' experiments, beside the library.

What the project measured about BERT, not what its users import to train
and serve: `bert_tf2`, `modeling`, `tokenization` and `optimization` import
nothing from here (tests/layering_test.py checks), as Model Garden keeps
`official/` and `research/` apart.

  bert_research.analysis   position-embedding and attention analysis, the
                           classic questions measured (docs/questions.md)
  bert_research.demos      the docs' data builders (movie reviews,
                           People's Daily, Chinese sentiment)
  bert_research.scripts    the flags and mains of analyze_position_embeddings.py
                           and visualize_attention.py (console commands
                           bert-analyze-position-embeddings,
                           bert-visualize-attention)

Needs the "analysis" extra (pip install -e .[analysis]). Its tests are under
tests/research/. Importing this package imports nothing heavy.
"""
