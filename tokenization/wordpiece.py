"""WordpieceTokenizer: greedy longest-match-first sub-word splitting.

Each word is split left to right into the longest prefix found in the
vocabulary, then the longest "##"-prefixed continuation, and so on. A word
with a part that matches nothing, or longer than `max_input_chars_per_word`
code points, becomes the single `unk_token`.

Example:
  >>> vocab = {"un": 0, "##aff": 1, "##able": 2, "[UNK]": 3}
  >>> WordpieceTokenizer(vocab).tokenize("unaffable xyz")
  ['un', '##aff', '##able', '[UNK]']
"""

from tokenization import text as T


def wordpiece_word(word, vocab, unk_token, max_input_chars_per_word,
                   max_piece_chars=None):
  """Word pieces (list of str) of one `word` without whitespace.

  Args:
    word: str.
    vocab: container of pieces ("##" marks a continuation).
    unk_token: str returned (alone) when `word` cannot be split.
    max_input_chars_per_word: int; longer words give [unk_token].
    max_piece_chars: optional int, the longest entry of `vocab` in
      characters; only an optimisation (longer candidates are skipped), the
      result is the same.
  """
  n = len(word)
  if n > max_input_chars_per_word:
    return [unk_token]
  pieces = []
  start = 0
  while start < n:
    end = n if max_piece_chars is None else min(n, start + max_piece_chars)
    piece = None
    while start < end:
      candidate = word[start:end]
      if start > 0:
        candidate = "##" + candidate
      if candidate in vocab:
        piece = candidate
        break
      end -= 1
    if piece is None:
      return [unk_token]
    pieces.append(piece)
    start = end
  return pieces


class WordpieceTokenizer(object):
  """Splits basic tokens into word pieces of a vocabulary."""

  def __init__(self, vocab, unk_token="[UNK]", max_input_chars_per_word=200):
    self.vocab = vocab
    self.unk_token = unk_token
    self.max_input_chars_per_word = max_input_chars_per_word

  def tokenize(self, text):
    """Returns the word pieces of every whitespace-delimited word of `text`."""
    text = T.convert_to_unicode(text)
    output = []
    for word in T.whitespace_tokenize(text):
      output.extend(wordpiece_word(word, self.vocab, self.unk_token,
                                   self.max_input_chars_per_word))
    return output
