"""Small utilities shared by every part of the project (atomic files, errors)."""

from bert_tf2.common.atomic import atomic_open, atomic_write_text, atomic_path
from bert_tf2.common.errors import InputError

__all__ = ["atomic_open", "atomic_write_text", "atomic_path", "InputError"]
