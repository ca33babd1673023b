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
def python_space_class():
  """RE2 class ("[...]") of what Python's str.split() splits on
  (str.isspace)."""
  return "[%s]" % char_class(
      code_point_ranges(lambda c: chr(c).isspace()), escape="re2")


def ranges_of(code_points):
  """Inclusive ranges [(lo, hi)] covering a sorted list of code points."""
  ranges = []
  for cp in code_points:
    if ranges and ranges[-1][1] == cp - 1:
      ranges[-1] = (ranges[-1][0], cp)
    else:
      ranges.append((cp, cp))
  return ranges


def _with_category(categories):
  """Sorted code points whose category is in `categories` (a set of str)."""
  return [cp for cp, cat in enumerate(_categories()) if cat in categories]


@functools.lru_cache(maxsize=None)
def _categories():
  return list(map(unicodedata.category, map(chr, range(sys.maxunicode + 1))))


@functools.lru_cache(maxsize=None)
def removed_ranges():
  """Code points the cleaning step deletes: NUL, U+FFFD, Cc/Cf but \\t\\n\\r."""
  control = set(_with_category({"Cc", "Cf"}))
  control -= {0x09, 0x0A, 0x0D}
  return ranges_of(sorted(control | {0, 0xFFFD}))


@functools.lru_cache(maxsize=None)
def punctuation_ranges():
  """Code points split off as punctuation (ASCII symbols and P*)."""
  punct = set(_with_category(
      {"Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps"}))
  for lo, hi in T.ASCII_PUNCTUATION_RANGES:
    punct.update(range(lo, hi + 1))
  return ranges_of(sorted(punct))


@functools.lru_cache(maxsize=None)
def nonspacing_mark_ranges():
  """Code points of category Mn, which accent stripping removes."""
  return ranges_of(_with_category({"Mn"}))


def cjk_ranges():
  """The CJK code-point ranges split into single characters."""
  return sorted(T.CJK_RANGES)
