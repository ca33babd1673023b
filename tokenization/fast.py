"""The fast Python path of FullTokenizer: same tokens, far fewer Python steps.

How it stays identical to the reference (`BasicTokenizer` +
`WordpieceTokenizer`):

* Cleaning deletes NUL, U+FFFD and Cc/Cf characters (but tab, newline,
  carriage return) with one regular expression whose character class is
  built from `unicodedata` (`tokenization.tables`); pure-ASCII text uses a
  small static class. Mapping whitespace to " " is unnecessary because
  `str.split()` already splits on every character the reference turns into
  a space (Zs, \\t, \\n, \\r) and, after cleaning, on nothing else the
  reference would keep inside a word (U+2028/U+2029 split in both).
* CJK characters are split off with one regex split (as if surrounded by
  spaces).
* Everything after whitespace splitting depends only on the word, so each
  word's final word pieces are computed once and cached. A new word is
  lower-cased with `str.lower`, NFD-normalized, stripped of Mn characters
  and split on punctuation with regexes whose classes again come from
  `unicodedata` (pure-ASCII words use a small static regex), then split
  by the reference WordPiece function (with its candidate length capped at
  the vocabulary's longest entry, which cannot change the result).

Cache memory bound: at most `max_cache_size` words (default 262,144) are
cached; words longer than 64 characters are never cached. When the cache is
full it is cleared and refills with the words seen next. A cached English
word with its pieces and ids costs roughly 300-400 bytes, so the default
bound is about 100 MB at most (typically far less: real corpora have fewer
distinct short words).

Example:
  >>> vocab = {"[UNK]": 0, "hello": 1, "!": 2, "wor": 3, "##ld": 4}
  >>> fast = FastWordPiecePipeline(vocab, do_lower_case=True)
  >>> fast.tokenize("Hello\\x00 World!")
  ['hello', 'wor', '##ld', '!']
  >>> fast.tokenize_to_ids("Hello World!")
  [1, 3, 4, 2]
"""

import itertools
import re
import unicodedata

from tokenization import checks
from tokenization import tables
from tokenization import text as T
from tokenization import vocab as V
from tokenization import wordpiece

DEFAULT_MAX_CACHE_SIZE = 1 << 18
MAX_CACHED_WORD_CHARS = 64

_ASCII_REMOVED_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ASCII_WORD_RE = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]")
# Splits around each CJK character (kept: a capturing group). Joining the
# parts with spaces then splitting equals padding every CJK character with
# spaces, without a per-character template substitution (3x faster).
_CJK_SPLIT_RE = re.compile("([%s])" % tables.char_class(tables.cjk_ranges()))

_unicode_res = {}


def _unicode_re(name):
  """Lazily compiled regexes over Unicode classes (built on first use)."""
  if name not in _unicode_res:
    if name == "removed":
      pattern = "[%s]" % tables.char_class(tables.removed_ranges())
    elif name == "mn":
      pattern = "[%s]" % tables.char_class(tables.nonspacing_mark_ranges())
    else:  # "word": a punctuation char, or a run of anything else.
      punct = tables.char_class(tables.punctuation_ranges())
      pattern = "[%s]|[^%s]+" % (punct, punct)
    _unicode_res[name] = re.compile(pattern)
  return _unicode_res[name]


def _removed_re():
  return _unicode_re("removed")


def basic_word_tokens(word, do_lower_case):
  """Same as `basic.basic_word_tokens`, with regexes instead of char loops."""
  if word.isascii():
    return _ASCII_WORD_RE.findall(word.lower() if do_lower_case else word)
  if do_lower_case:
    word = _unicode_re("mn").sub(
        "", unicodedata.normalize("NFD", word.lower()))
  tokens = []
  for piece in _unicode_re("word").findall(word):
    tokens.extend(piece.split())
  return tokens


def split_words(text):
  """Cleaned, CJK-split, whitespace-delimited words of `text` (str/bytes)."""
  text = T.convert_to_unicode(text)
  if text.isascii():
    return _ASCII_REMOVED_RE.sub("", text).split()
  text = _removed_re().sub("", text)
  return " ".join(_CJK_SPLIT_RE.split(text)).split()


class _Cache(dict):
  """dict word -> tuple computed on a miss, cleared when full."""

  def __init__(self, compute, max_size):
    super().__init__()
    self._compute = compute
    self._max_size = max_size

  def __missing__(self, word):
    value = self._compute(word)
    if len(word) <= MAX_CACHED_WORD_CHARS:
      if len(self) >= self._max_size:
        self.clear()
      self[word] = value
    return value


def basic_tokenizer(do_lower_case=True, max_cache_size=DEFAULT_MAX_CACHE_SIZE):
  """A cached function text -> basic tokens, equal to BasicTokenizer's.

  (Without [unusedN] preservation.)

  Example:
    >>> basic_tokenizer(True)(u"Hello, WORLD")
    ['hello', ',', 'world']
  """
  def compute(word):
    return tuple(basic_word_tokens(word, do_lower_case))
  cache = _Cache(compute, max_cache_size)

  def tokenize(text):
    return list(itertools.chain.from_iterable(
        map(cache.__getitem__, split_words(text))))
  return tokenize


class FastWordPiecePipeline(object):
  """Text -> word pieces (or ids) with a per-word cache; see module doc."""

  def __init__(self, vocab, do_lower_case=True, preserve_unused_tokens=False,
               unk_token="[UNK]", max_input_chars_per_word=200,
               max_cache_size=DEFAULT_MAX_CACHE_SIZE):
    """Builds the pipeline.

    Args:
      vocab: dict token -> id (e.g. from `load_vocab`).
      do_lower_case: bool.
      preserve_unused_tokens: bool, keep "[unusedN]" vocab entries whole.
      unk_token: str.
      max_input_chars_per_word: int, longer words become `unk_token`.
      max_cache_size: int > 0, the most words kept in each cache.
    """
    if max_cache_size <= 0:
      raise ValueError("max_cache_size must be positive, got %r"
                       % (max_cache_size,))
    self.vocab = vocab
    self.do_lower_case = do_lower_case
    self.preserve_unused_tokens = preserve_unused_tokens
    self.unk_token = unk_token
    self.max_input_chars_per_word = max_input_chars_per_word
    self._max_piece_chars = max((len(t) for t in vocab), default=0)
    self._pieces = _Cache(self._word_pieces, max_cache_size)
    self._ids = _Cache(self._word_ids, max_cache_size)

  def _basic_tokens(self, word):
    if checks.preserve_token(word, self.vocab, self.preserve_unused_tokens):
      return [word]
    return basic_word_tokens(word, self.do_lower_case)

  def _word_pieces(self, word):
    pieces = []
    for token in self._basic_tokens(word):
      if checks.preserve_token(token, self.vocab,
                               self.preserve_unused_tokens):
        pieces.append(token)
      elif (len(token) <= self.max_input_chars_per_word
            and token in self.vocab):
        pieces.append(token)  # The greedy match takes the whole token.
      else:
        pieces.extend(wordpiece.wordpiece_word(
            token, self.vocab, self.unk_token, self.max_input_chars_per_word,
            self._max_piece_chars))
    return tuple(pieces)

  def _word_ids(self, word):
    return tuple(V.convert_by_vocab(self.vocab, self._pieces[word]))

  def tokenize(self, text):
    """List of word pieces (str) of `text` (str or bytes)."""
    return list(itertools.chain.from_iterable(
        map(self._pieces.__getitem__, split_words(text))))

  def tokenize_to_ids(self, text):
    """List of vocabulary ids (int) of `text`'s word pieces."""
    return list(itertools.chain.from_iterable(
        map(self._ids.__getitem__, split_words(text))))

  def cache_size(self):
    """Number of words currently cached (pieces cache)."""
    return len(self._pieces)
