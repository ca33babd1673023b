"""Small utilities shared by every part of the project (atomic files, errors).

The atomic writers and `InputError` live in `tokenization` (the lowest
package, which `modeling` uses too) and are named here for `bert_tf2`.
"""

from tokenization.atomic import atomic_open
from tokenization.atomic import atomic_path
from tokenization.atomic import atomic_write_text
from tokenization.errors import InputError

__all__ = ["atomic_open", "atomic_write_text", "atomic_path", "InputError"]
