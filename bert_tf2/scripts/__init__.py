"""The scripts' flag definitions and mains.

Importing this package (every script does, before TensorFlow) keeps
TensorFlow's start-up output out of the scripts' output; see
`bert_tf2.common.quiet_start` (set TF_CPP_MIN_LOG_LEVEL to see it).
"""

from bert_tf2.common import quiet_start

quiet_start.install()
