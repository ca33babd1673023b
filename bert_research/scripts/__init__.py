"""The research scripts' flag definitions and mains.

analyze_position_embeddings.py and visualize_attention.py (top-level
wrappers) and the console commands bert-analyze-position-embeddings and
bert-visualize-attention run these. Importing this package keeps
TensorFlow's start-up output out of the scripts' output, as
`bert_tf2.scripts` does.
"""

from bert_tf2.common import quiet_start

quiet_start.install()
