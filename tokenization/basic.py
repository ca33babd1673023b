"""BasicTokenizer: cleaning, CJK and punctuation splitting, lower-casing.

This is the plain (reference) implementation, one character at a time, of
the rules in `tokenization.text`. `FullTokenizer` uses a faster path that is
tested to give identical output (see `tokenization.fast`).

Example:
  >>> BasicTokenizer(do_lower_case=True).tokenize(u" \\tHeLLo!how  \\n Are yoU?  ")
  ['hello', '!', 'how', 'are', 'you', '?']
  >>> BasicTokenizer(do_lower_case=False).tokenize(u"Héllo 中文")
  ['Héllo', '中', '文']
"""

from tokenization import checks
from tokenization import flags as tok_flags
from tokenization import text as T


def basic_word_tokens(word, do_lower_case):
  """Basic tokens of one whitespace-delimited, cleaned `word` (a str)."""
  if do_lower_case:
    word = T.strip_accents(word.lower())
  tokens = []
  for piece in T.split_on_punctuation(word):
    tokens.extend(piece.split())
  return tokens


class BasicTokenizer(object):
  """Splits text into words and punctuation, as BERT's BasicTokenizer."""

  def __init__(self, do_lower_case=True, vocab=tuple(),
               preserve_unused_tokens=None):
    """Constructs a BasicTokenizer.

    Args:
      do_lower_case: bool, lower-case and strip accents.
      vocab: container of tokens; with `preserve_unused_tokens`, a
        whitespace-delimited word that is an "[unusedN]" entry of it is kept
        unchanged.
      preserve_unused_tokens: bool, or None to read the absl flag
        --preserve_unused_tokens (the original's behaviour).
    """
    self.do_lower_case = do_lower_case
    self.vocab = vocab
    self.preserve_unused_tokens = tok_flags.resolve_preserve_unused_tokens(
        preserve_unused_tokens)

  def tokenize(self, text):
    """Returns the list of basic tokens (str) of `text` (str or bytes)."""
    text = T.convert_to_unicode(text)
    text = T.space_chinese_chars(T.clean_text(text))
    output = []
    for word in T.whitespace_tokenize(text):
      if checks.preserve_token(word, self.vocab, self.preserve_unused_tokens):
        output.append(word)
      else:
        output.extend(basic_word_tokens(word, self.do_lower_case))
    return output

  # The original's private helpers, kept for code that calls them.
  def _run_strip_accents(self, text):
    return T.strip_accents(text)

  def _run_split_on_punc(self, text):
    return T.split_on_punctuation(text)

  def _tokenize_chinese_chars(self, text):
    return T.space_chinese_chars(text)

  def _is_chinese_char(self, cp):
    return T.is_chinese_char(cp)

  def _clean_text(self, text):
    return T.clean_text(text)
