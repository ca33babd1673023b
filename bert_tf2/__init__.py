"""bert_tf2: the internals of the BERT (TF2 / Keras 3) reproduction.

The original's users import `modeling`, `tokenization` and `optimization`
and run the original scripts; everything else lives here, under one name
(`bert_tf2.scripts`: the scripts' flags and mains; each task's library in
its package). The learners' experiments live beside it in `bert_research`,
which nothing here imports.

Importing this package imports nothing heavy.
"""
