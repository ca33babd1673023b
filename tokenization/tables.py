"""Character tables derived once from `unicodedata` for the fast paths.

The reference tokenizer asks `unicodedata` about every character. The fast
Python path and the in-graph path instead use regular-expression character
classes built here, once, from the very same `unicodedata` answers, so they
classify every code point exactly as the reference does.

Example:
  >>> ranges = code_point_ranges(lambda cp: 0x41 <= cp <= 0x43 or cp == 0x5A)
  >>> ranges
  [(65, 67), (90, 90)]
  >>> char_class(ranges, escape="python")
  '\\\\x41-\\\\x43\\\\x5a'
"""

import functools
import sys
import unicodedata

from tokenization import text as T


def code_point_ranges(predicate):
  """Sorted inclusive ranges [(lo, hi)] of code points where predicate holds."""
  ranges = []
  start = None
  for cp in range(sys.maxunicode + 1):
    if predicate(cp):
      if start is None:
        start = cp
    elif start is not None:
      ranges.append((start, cp - 1))
      start = None
  if start is not None:
    ranges.append((start, sys.maxunicode))
  return ranges


def _escape(cp, escape):
  if escape == "python":
    return "\\x%02x" % cp if cp < 0x100 else (
        "\\u%04x" % cp if cp < 0x10000 else "\\U%08x" % cp)
  return "\\x{%x}" % cp  # RE2 syntax.


def char_class(ranges, escape="python"):
  """Body of a regex character class ("[...]") matching `ranges`.

  Args:
    ranges: list of inclusive (lo, hi) code-point ranges.
    escape: "python" for `re`, "re2" for TensorFlow's regex ops.
  """
  parts = []
  for lo, hi in ranges:
    if lo == hi:
      parts.append(_escape(lo, escape))
    else:
      parts.append("%s-%s" % (_escape(lo, escape), _escape(hi, escape)))
  return "".join(parts)


@functools.lru_cache(maxsize=None)
def _categories():
  return [unicodedata.category(chr(cp)) for cp in range(sys.maxunicode + 1)]


@functools.lru_cache(maxsize=None)
def removed_ranges():
  """Code points the cleaning step deletes: NUL, U+FFFD, Cc/Cf but \\t\\n\\r."""
  cats = _categories()
  keep = (0x09, 0x0A, 0x0D)
  return code_point_ranges(
      lambda cp: cp == 0 or cp == 0xFFFD or (
          cats[cp] in ("Cc", "Cf") and cp not in keep))


@functools.lru_cache(maxsize=None)
def whitespace_ranges():
  """Code points the cleaning step turns into a space: \\t\\n\\r, " ", Zs."""
  cats = _categories()
  return code_point_ranges(
      lambda cp: cp in (0x09, 0x0A, 0x0D, 0x20) or cats[cp] == "Zs")


@functools.lru_cache(maxsize=None)
def punctuation_ranges():
  """Code points split off as punctuation (ASCII symbols and P*)."""
  cats = _categories()
  ascii_punct = set()
  for lo, hi in T.ASCII_PUNCTUATION_RANGES:
    ascii_punct.update(range(lo, hi + 1))
  return code_point_ranges(
      lambda cp: cp in ascii_punct or cats[cp].startswith("P"))


def cjk_ranges():
  """The CJK code-point ranges split into single characters."""
  return sorted(T.CJK_RANGES)
