"""Small utilities shared by every part of the project (atomic files, errors)."""

from common.atomic import atomic_open, atomic_write_text, atomic_path
from common.errors import InputError

__all__ = ["atomic_open", "atomic_write_text", "atomic_path", "InputError"]
