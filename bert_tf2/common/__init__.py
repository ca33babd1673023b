"""Small utilities shared by every part of the project (atomic files, errors).

`atomic_open`, `atomic_write_text`, `atomic_path` and `InputError` are
defined in `tokenization.atomic` and `tokenization.errors` (the project's
lowest package, so that `modeling` uses them without importing `bert_tf2`);
they are named here too because every part of `bert_tf2` uses them.
"""

from tokenization.atomic import atomic_open
from tokenization.atomic import atomic_path
from tokenization.atomic import atomic_write_text
from tokenization.errors import InputError

__all__ = ["atomic_open", "atomic_write_text", "atomic_path", "InputError"]
