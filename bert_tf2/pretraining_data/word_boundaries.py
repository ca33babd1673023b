# coding=utf-8
"""Word boundaries for Chinese whole-word masking (`--word_boundaries`).

BERT's BasicTokenizer splits Chinese text into single characters, so the
word-piece rule of `--do_whole_word_mask` ("##" pieces join the token
before) never groups the characters of a Chinese word. With
`--word_boundaries=spaces` or `=jieba` the words come from a segmentation
instead, and every token that is not the first of its word is marked as a
continuation; masking then treats a word's characters as one group (all
masked together, one 80/10/10 draw per word).

  none    today's behaviour (the original's), nothing marked.
  spaces  the input is pre-segmented: words separated by spaces (any
          segmenter's output, or a gold segmentation). With
          --segmented_file the words come from that file instead, line by
          line beside --input_file, whose raw text is what is tokenized;
          the characters of both must match.
  jieba   words from the jieba segmenter (`pip install jieba`, the
          "chinese" extra).

Marks travel inside the token ids: a continuation token's id has
`CONTINUATION` (bit 30) set, so documents, truncation and the original's
random draws are untouched; `strip` removes the bit before ids are written.

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

MODES = ("none", "spaces", "jieba")
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
      (their non-blank lines, in order, segment the input's non-blank
      lines); only with mode "spaces".

  The returned function must be called on the input's non-blank lines in
  file order (read_documents does).
  """
  if mode not in MODES or mode == "none":
    raise InputError("--word_boundaries=%s: expected one of %s" %
                     (mode, ", ".join(MODES)))
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
