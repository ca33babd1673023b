"""Text helpers and character classes of BERT's basic tokenizer.

These are the rules Google's `tokenization.py` applies, one code point at a
time (Unicode data from Python's `unicodedata`):

* whitespace: " ", "\\t", "\\n", "\\r" and category Zs;
* control (dropped): categories Cc and Cf, except "\\t", "\\n", "\\r";
* punctuation (split off): every non-alphanumeric printable ASCII character
  (so "$", "^", "`" count) plus categories P*;
* CJK ideographs: the CJK Unified Ideographs blocks (and extensions A-E,
  compatibility ideographs), which are split into single-character words.

Example:
  >>> is_punctuation("$"), is_whitespace("\\u3000"), is_control("\\u200b")
  (True, True, True)
  >>> whitespace_tokenize("  a b\\n c ")
  ['a', 'b', 'c']
"""

import unicodedata

# Inclusive code-point ranges treated as CJK characters.
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)

# Printable ASCII that is neither a letter nor a digit.
ASCII_PUNCTUATION_RANGES = ((33, 47), (58, 64), (91, 96), (123, 126))


def convert_to_unicode(text):
  """Returns `text` as `str`; bytes are decoded as UTF-8, bad bytes dropped.

  Args:
    text: `str` or `bytes`.

  Returns:
    `str`. Raises ValueError for any other type.

  Example:
    >>> convert_to_unicode(b"caf\\xc3\\xa9\\xff")
    'café'
  """
  if isinstance(text, str):
    return text
  if isinstance(text, bytes):
    return text.decode("utf-8", "ignore")
  raise ValueError("Unsupported string type: %s" % (type(text)))


def printable_text(text):
  """Returns `text` as a `str` fit for printing and logging.

  On Python 3 this is the same conversion as `convert_to_unicode`.
  """
  return convert_to_unicode(text)


def whitespace_tokenize(text):
  """Splits `text` on whitespace (Python's `str.split()`), dropping empties."""
  return text.split()


def is_whitespace(char):
  """True if the one-character string `char` is whitespace for BERT."""
  if char in (" ", "\t", "\n", "\r"):
    return True
  return unicodedata.category(char) == "Zs"


def is_control(char):
  """True if `char` is a control/format character that BERT drops."""
  if char in ("\t", "\n", "\r"):
    return False
  return unicodedata.category(char) in ("Cc", "Cf")


def is_punctuation(char):
  """True if `char` is split off as its own token (ASCII symbols and P*)."""
  cp = ord(char)
  for lo, hi in ASCII_PUNCTUATION_RANGES:
    if lo <= cp <= hi:
      return True
  return unicodedata.category(char).startswith("P")


def is_chinese_char(cp):
  """True if the code point `cp` (an int) is in one of the CJK_RANGES."""
  for lo, hi in CJK_RANGES:
    if lo <= cp <= hi:
      return True
  return False


def strip_accents(text):
  """NFD-normalizes `text` and removes nonspacing marks (category Mn)."""
  text = unicodedata.normalize("NFD", text)
  return "".join(c for c in text if unicodedata.category(c) != "Mn")


def split_on_punctuation(text):
  """Splits `text` into runs of non-punctuation and single punctuation chars.

  Example:
    >>> split_on_punctuation("a,b!!c")
    ['a', ',', 'b', '!', '!', 'c']
  """
  output = []
  in_word = False
  for char in text:
    if is_punctuation(char):
      output.append(char)
      in_word = False
    elif in_word:
      output[-1] += char
    else:
      output.append(char)
      in_word = True
  return output


def clean_text(text):
  """Drops NUL, U+FFFD and control chars; maps whitespace chars to " "."""
  output = []
  for char in text:
    cp = ord(char)
    if cp == 0 or cp == 0xFFFD or is_control(char):
      continue
    output.append(" " if is_whitespace(char) else char)
  return "".join(output)


def space_chinese_chars(text):
  """Surrounds every CJK character of `text` with spaces."""
  output = []
  for char in text:
    if is_chinese_char(ord(char)):
      output.extend((" ", char, " "))
    else:
      output.append(char)
  return "".join(output)
