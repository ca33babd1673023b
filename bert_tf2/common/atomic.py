"""Atomic output files (defined in tokenization.atomic).

They live in `tokenization`, the project's lowest package, so that
`modeling` writes checkpoints and configs atomically without importing
`bert_tf2`. Import them from here or from `bert_tf2.common`.
"""

from tokenization.atomic import atomic_open
from tokenization.atomic import atomic_path
from tokenization.atomic import atomic_write_text
from tokenization.atomic import is_local
from tokenization.atomic import replace

__all__ = ["atomic_open", "atomic_path", "atomic_write_text", "is_local",
           "replace"]
