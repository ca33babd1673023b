"""FullTokenizer: text -> BERT word pieces and ids, as Google's original.

`FullTokenizer(vocab_file, do_lower_case=True)` has the original's API
(`tokenize`, `convert_tokens_to_ids`, `convert_ids_to_tokens`, `vocab`,
`inv_vocab`, `basic_tokenizer`, `wordpiece_tokenizer`) and output. By
default `tokenize` runs the cached fast path (`tokenization.fast`), which is
property-tested to equal the reference path; `cache=False` selects the plain
reference path (`BasicTokenizer` then `WordpieceTokenizer`).

Example:
  >>> import tempfile, os
  >>> path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
  >>> _ = open(path, "w").write("\\n".join(
  ...     ["[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un",
  ...      "runn", "##ing", ","]) + "\\n")
  >>> tokenizer = FullTokenizer(vocab_file=path, do_lower_case=True)
  >>> tokenizer.tokenize(u"UNwant\\u00E9d,running")
  ['un', '##want', '##ed', ',', 'runn', '##ing']
  >>> tokenizer.convert_tokens_to_ids(["un", "##want", "##ed"])
  [7, 4, 5]
  >>> tokenizer.tokenize_to_ids(u"unwanted")
  [7, 4, 5]
"""

from absl import logging

from tokenization import basic
from tokenization import checks
from tokenization import fast
from tokenization import flags as tok_flags
from tokenization import vocab as V
from tokenization import wordpiece


class FullTokenizer(object):
  """Basic tokenization followed by WordPiece, with the original's API."""

  def __init__(self, vocab_file, do_lower_case=True,
               preserve_unused_tokens=None, cache=True,
               max_cache_size=fast.DEFAULT_MAX_CACHE_SIZE):
    """Loads the vocabulary and builds the tokenizers.

    Args:
      vocab_file: path of the vocabulary (one token per line).
      do_lower_case: bool, lower-case and strip accents (uncased models).
      preserve_unused_tokens: bool, keep "[unusedN]" vocabulary entries found
        in the text whole; None reads the absl flag --preserve_unused_tokens
        (False when flags are not parsed), like the original.
      cache: bool; True (default) uses the cached fast path, False the plain
        reference path. Both give the same tokens.
      max_cache_size: int, the most distinct words cached (see
        `tokenization.fast` for the memory this bounds).
    """
    self.vocab = V.load_vocab(vocab_file)
    self.inv_vocab = {v: k for k, v in self.vocab.items()}
    self.vocab_file = vocab_file
    self.do_lower_case = do_lower_case
    self.preserve_unused_tokens = tok_flags.resolve_preserve_unused_tokens(
        preserve_unused_tokens)
    self.basic_tokenizer = basic.BasicTokenizer(
        do_lower_case=do_lower_case, vocab=self.vocab,
        preserve_unused_tokens=self.preserve_unused_tokens)
    self.wordpiece_tokenizer = wordpiece.WordpieceTokenizer(vocab=self.vocab)
    if "[UNK]" not in self.vocab:
      logging.warning(
          "--vocab_file=%s has no [UNK] entry: text with a word it cannot "
          "split will fail to convert to ids", vocab_file)
    self._fast = None
    if cache:
      self._fast = fast.FastWordPiecePipeline(
          self.vocab, do_lower_case=do_lower_case,
          preserve_unused_tokens=self.preserve_unused_tokens,
          max_cache_size=max_cache_size)

  def tokenize_reference(self, text):
    """Word pieces of `text` by the plain reference path (no cache)."""
    pieces = []
    for token in self.basic_tokenizer.tokenize(text):
      if checks.preserve_token(token, self.vocab,
                                     self.preserve_unused_tokens):
        pieces.append(token)
      else:
        pieces.extend(self.wordpiece_tokenizer.tokenize(token))
    return pieces

  def tokenize(self, text):
    """List of word pieces (str) of `text` (str, or UTF-8 bytes)."""
    if self._fast is not None:
      return self._fast.tokenize(text)
    return self.tokenize_reference(text)

  def tokenize_to_ids(self, text):
    """`convert_tokens_to_ids(tokenize(text))`, faster with the cache."""
    if self._fast is not None:
      return self._fast.tokenize_to_ids(text)
    return self.convert_tokens_to_ids(self.tokenize_reference(text))

  def convert_tokens_to_ids(self, tokens):
    """Ids (list of int) of `tokens`; UnknownTokenError (a KeyError) if absent."""
    return V.convert_by_vocab(self.vocab, tokens)

  def convert_ids_to_tokens(self, ids):
    """Tokens (list of str) of `ids`; UnknownTokenError (a KeyError) if absent."""
    return V.convert_by_vocab(self.inv_vocab, ids)
