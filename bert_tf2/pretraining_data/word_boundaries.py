# coding=utf-8
"""Word boundaries for Chinese whole-word masking (`--word_boundaries`).

BasicTokenizer splits Chinese text into characters, so "##" grouping never
groups a Chinese word. With `spaces` (words separated by spaces in the
input, or in a line-parallel --segmented_file) or `jieba` (the segmenter),
every token that is not the first of its word carries `CONTINUATION`
(bit 30) in its id, leaving documents and the original's random draws
untouched; masking groups a word's tokens (docs/pretraining_data.md).

Example:
  >>> import collections
  >>> class Tok:  # Splits into characters, like BasicTokenizer for Chinese.
  ...   vocab = collections.OrderedDict((c, i) for i, c in enumerate("中国人民"))
  ...   def tokenize(self, text):
  ...     return [c for c in text if not c.isspace()]
  >>> ids = make_tokenize_ids(Tok(), "spaces")("中国 人民")
  >>> [(strip(i), is_continuation(i)) for i in ids]
  [(0, False), (1, True), (2, False), (3, True)]
"""

from bert_tf2.common import InputError

CONTINUATION = 1 << 30


def is_continuation(token_id):
  return token_id >= CONTINUATION


def strip(token_id):
  return token_id & (CONTINUATION - 1)


def _words_to_ids(words, tokenize, vocab):
  ids = []
  for word in words:
    for k, token in enumerate(tokenize(word)):
      ids.append(vocab[token] | (CONTINUATION if k else 0))
  return ids


def _jieba_cut():
  try:
    import jieba  # pylint: disable=g-import-not-at-top
  except ImportError:
    raise InputError("--word_boundaries=jieba: the jieba package is not "
                     "installed (pip install jieba, or bert-tf2[chinese])")
  jieba.setLogLevel(60)
  return lambda text: list(jieba.cut(text, HMM=True))


def _nonblank_lines(path):
  """Yields (line_number, stripped text) of the non-blank lines of path."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  try:
    with tf.io.gfile.GFile(path, "rb") as f:
      for number, raw in enumerate(f, 1):
        text = raw.decode("utf-8", "ignore").replace("\r", "").strip()
        if text:
          yield number, text
  except (OSError, IOError, tf.errors.OpError) as e:
    raise InputError("--segmented_file: cannot read %s: %s" % (path, e))


def _no_space(text):
  return "".join(text.split())


def make_tokenize_ids(tokenizer, mode, segmented_files=None):
  """Returns text -> list of ids with continuation marks for `mode`.

  Args:
    tokenizer: FullTokenizer (tokenize() and vocab).
    mode: "spaces" or "jieba".
    segmented_files: optional list of files, line-parallel to the input
      (their non-blank lines segment the input's non-blank lines, which the
      returned function must get in file order); only with mode "spaces".
  """
  tokenize, vocab = tokenizer.tokenize, tokenizer.vocab
  if mode == "jieba":
    cut = _jieba_cut()
    return lambda text: _words_to_ids(
        [w for w in cut(text) if w.strip()], tokenize, vocab)
  if not segmented_files:
    return lambda text: _words_to_ids(text.split(), tokenize, vocab)

  def segmented_lines():
    for path in segmented_files:
      for number, text in _nonblank_lines(path):
        yield path, number, text
  lines = segmented_lines()

  def tokenize_ids(text):
    try:
      path, number, segmented = next(lines)
    except StopIteration:
      raise InputError("--segmented_file: has fewer non-blank lines than "
                       "--input_file (ran out at raw line %r)" % text[:40])
    if _no_space(segmented) != _no_space(text):
      raise InputError(
          "--segmented_file=%s:%d: characters do not match the raw text "
          "%r (segmented %r)" % (path, number, text[:40], segmented[:40]))
    return _words_to_ids(segmented.split(), tokenize, vocab)
  return tokenize_ids
