"""In-graph BERT tokenizer on TensorFlow ops and tensorflow-text.

`InGraphTokenizer(vocab_file, do_lower_case)` turns a string tensor into
ragged word-piece ids inside a graph: usable in `tf.data` pipelines and
saved with a SavedModel that serves raw text. It composes:

1. `tf.strings.unicode_transcode(errors="ignore")`: drops invalid UTF-8,
   as `convert_to_unicode` does;
2. `tf.strings.regex_replace` with character classes built from Python's
   `unicodedata` (`tokenization.tables`): delete NUL/U+FFFD/control chars,
   put spaces around CJK characters;
3. when lower-casing: `tf.strings.lower(encoding="utf-8")` (ICU full case
   mapping, with the final-sigma rule, like `str.lower`), ICU NFD
   (`tensorflow_text.normalize_utf8`) and deletion of category Mn;
4. `tensorflow_text.regex_split` on whitespace, keeping punctuation
   characters as words (classes from `unicodedata` again);
5. words longer than 200 characters become "[UNK]";
6. `tensorflow_text.FastWordpieceTokenizer` (greedy longest match, "##").

Where it can differ from the original (tests pin each difference):

* Unicode versions: case mapping and NFD come from TensorFlow's ICU, not
  Python's `unicodedata` (Unicode 14.0 on Python 3.11). A handful of code
  points whose lower case or decomposition was added or changed between
  those Unicode versions (e.g. U+2C2F GLAGOLITIC CAPITAL LETTER CAUDATE
  CHRIVI, lower-cased by Python only; about 60 such code points, all in
  recently encoded scripts) are tokenized differently when lower-casing.
  `unicode_version_differences()` lists them.
* `str.lower` and ICU apply the final-sigma rule over different spans: the
  original lower-cases each whitespace-delimited word, here the whole text
  is lower-cased at once. They agree whenever the characters around a
  final capital sigma are ordinary letters, spaces or punctuation.
* `preserve_unused_tokens` is not supported (raises ValueError).
* The vocabulary must contain "[UNK]" (raises InputError otherwise).

On all other text (every other code point, cased or uncased) it produces
the reference tokens; see tests/tokenization/tf_text_test.py.

Example:
  >>> tok = InGraphTokenizer(vocab_file, do_lower_case=True)  # doctest: +SKIP
  >>> tok.tokenize(tf.constant(["Hello, world!"]))            # doctest: +SKIP
  <tf.RaggedTensor [[7592, 1010, 2088, 999]]>
  >>> ds = tf.data.Dataset.from_tensor_slices(texts).batch(32).map(
  ...     tok.tokenize)                                        # doctest: +SKIP
  >>> features = tok.bert_inputs(text_a, text_b, max_seq_length=128)  # doctest: +SKIP
"""

import functools
import sys
import unicodedata

import tensorflow as tf
import tensorflow_text as tf_text
from tensorflow_text.python.ops import regex_split_ops as _regex_split_ops

from tokenization.errors import InputError
from tokenization import packing
from tokenization import tables
from tokenization import vocab as V


@functools.lru_cache(maxsize=None)
def _patterns():
  """RE2 patterns (removed, cjk, split delimiters, kept delimiters, Mn)."""
  removed = tables.removed_ranges()
  removed_set = set()
  for lo, hi in removed:
    removed_set.update(range(lo, hi + 1))
  # Everything str.split() splits on and cleaning keeps (Zs, \t\n\r, ...).
  spaces = tables.ranges_of([
      cp for cp in range(sys.maxunicode + 1)
      if chr(cp).isspace() and cp not in removed_set])
  punct = tables.punctuation_ranges()
  mn = tables.nonspacing_mark_ranges()

  def cls(ranges):
    return "[%s]" % tables.char_class(ranges, escape="re2")

  return {
      "removed": cls(removed),
      "cjk": "(%s)" % cls(tables.cjk_ranges()),
      "delim": "%s+|%s" % (cls(spaces), cls(punct)),
      "keep": cls(punct),
      "mn": cls(mn),
  }


def unicode_version_differences():
  """Code points where ICU's lower/NFD differ from Python's (list of int).

  Computed on the fly (a few seconds): every code point whose
  lower-case-then-NFD-then-strip-Mn string differs between this process's
  TensorFlow ops and Python's `unicodedata`.
  """
  cps = [cp for cp in range(1, sys.maxunicode + 1)
         if not 0xD800 <= cp <= 0xDFFF and cp != 0x0A]
  # One long "\n"-separated string: a few large ops instead of 1.1M small.
  joined = "\n".join(chr(cp) for cp in cps).encode("utf-8")
  out = _lower_strip(tf.constant([joined]), _patterns()["mn"]).numpy()[0]
  got = out.decode("utf-8").split("\n")
  if len(got) != len(cps):
    raise AssertionError("separator changed by lower/NFD")
  diffs = []
  for cp, result in zip(cps, got):
    want = unicodedata.normalize("NFD", chr(cp).lower())
    if result != want:
      want = "".join(c for c in want if unicodedata.category(c) != "Mn")
      if result != want:
        diffs.append(cp)
  return diffs


def _regex_split(text, delim, keep):
  """tf_text.regex_split of a tf.string vector [batch] -> RaggedTensor
  [batch, (words)].

  The same op as tf_text.regex_split, whose wrapper builds three validated
  ragged tensors (words and both offsets) with assertion ops in Python:
  most of a tokenizer's tracing time (a serving signature's, a Keras
  predict's). The op's row splits are valid by construction, so one
  RaggedTensor of the words is built without validation. Other ranks (and
  a tensorflow-text without the op module) go through the public call.
  """
  op = getattr(_regex_split_ops, "gen_regex_split_ops", None)
  if op is None or text.shape.rank != 1:
    return tf_text.regex_split(text, delim, keep)
  words, _, _, splits = op.regex_split_with_offsets(
      text, "(%s)" % delim, "(%s)" % keep)
  return tf.RaggedTensor.from_row_splits(words, splits, validate=False)


def _lower_strip(text, mn_pattern):
  text = tf.strings.lower(text, encoding="utf-8")
  text = tf_text.normalize_utf8(text, "NFD")
  return tf.strings.regex_replace(text, mn_pattern, "")


def _safe_vocab_list(vocab):
  """Vocabulary as a list by id; entries FastWordpiece cannot take replaced.

  Entries that are empty or contain whitespace can never be produced by the
  original's tokenizer; they are replaced by U+FFFD-prefixed placeholders
  (U+FFFD never survives cleaning) so ids keep their positions.
  """
  tokens = [None] * len(vocab)
  for token, index in vocab.items():
    tokens[index] = token
  safe = []
  for index, token in enumerate(tokens):
    if not token or token == "##" or any(c.isspace() for c in token):
      token = "\ufffd<placeholder_%d>" % index
    safe.append(token)
  return safe


class InGraphTokenizer(tf.Module):
  """String tensor -> ragged BERT word-piece ids, in graph (see module doc)."""

  def __init__(self, vocab_file, do_lower_case=True,
               preserve_unused_tokens=False, max_input_chars_per_word=200,
               unk_token="[UNK]", name=None):
    """Builds the tokenizer.

    Args:
      vocab_file: vocabulary path (read by `tokenization.load_vocab`), or
        the loaded vocabulary, a dict {token: id}.
      do_lower_case: bool.
      preserve_unused_tokens: must be False (not supported in graph).
      max_input_chars_per_word: int, longer words become `unk_token`.
      unk_token: str, must be in the vocabulary.
      name: optional module name.
    """
    super().__init__(name=name)
    if preserve_unused_tokens:
      raise ValueError("InGraphTokenizer does not support "
                       "preserve_unused_tokens; use FullTokenizer")
    # A dict {token: id} is taken as the loaded vocabulary (the Keras
    # preprocessor keeps it in its config); its "file" is then "<vocab>".
    if isinstance(vocab_file, dict):
      vocab, vocab_file = vocab_file, "<vocabulary>"
    else:
      vocab = V.load_vocab(vocab_file)
    if unk_token not in vocab:
      raise InputError("--vocab_file=%s: has no %s entry, which the in-graph "
                       "tokenizer needs" % (vocab_file, unk_token))
    self.do_lower_case = do_lower_case
    self.max_input_chars_per_word = max_input_chars_per_word
    self.unk_token = unk_token
    self.vocab_size = len(vocab)
    self.cls_id = vocab.get("[CLS]")
    self.sep_id = vocab.get("[SEP]")
    self._vocab_file = vocab_file
    self._patterns = dict(_patterns())
    vocab_list = _safe_vocab_list(vocab)
    self._vocab_tokens = tf.constant(vocab_list)
    self._wordpiece = tf_text.FastWordpieceTokenizer(
        vocab=vocab_list, suffix_indicator="##",
        max_bytes_per_word=4 * max_input_chars_per_word + 4,
        token_out_type=tf.int64, unknown_token=unk_token,
        no_pretokenization=True)

  def vocabulary(self):
    """The tokens by id as this tokenizer uses them (list of str; an entry
    no text can produce, such as one with whitespace, is a placeholder):
    a tokenizer built on it tokenizes as this one."""
    return [t.decode("utf-8") for t in self._vocab_tokens.numpy()]

  def basic_tokens(self, text):
    """BasicTokenizer's tokens, any length: tf.string Tensor [batch] ->
    RaggedTensor [batch, (tokens)]."""
    text = tf.convert_to_tensor(text, dtype=tf.string)
    text = tf.strings.unicode_transcode(
        text, "UTF-8", "UTF-8", errors="ignore")
    text = tf.strings.regex_replace(text, self._patterns["removed"], "")
    text = tf.strings.regex_replace(text, self._patterns["cjk"], " \\1 ")
    if self.do_lower_case:
      text = _lower_strip(text, self._patterns["mn"])
    return _regex_split(text, self._patterns["delim"],
                        self._patterns["keep"])

  def split_words(self, text):
    """Words for the word-piece step: `basic_tokens`, those longer than
    max_input_chars_per_word replaced by the unknown token."""
    words = self.basic_tokens(text)
    too_long = tf.strings.length(
        words.flat_values, unit="UTF8_CHAR") > self.max_input_chars_per_word
    return words.with_flat_values(
        tf.where(too_long, self.unk_token, words.flat_values))

  def tokenize(self, text):
    """Word-piece ids: tf.string Tensor [batch] -> int64 RaggedTensor [batch, (pieces)]."""
    words = self.split_words(text)
    pieces = self._wordpiece.tokenize(words)  # [batch, (words), (pieces)]
    return pieces.merge_dims(-2, -1)

  def tokenize_to_pieces(self, text):
    """Word pieces as strings: tf.string RaggedTensor [batch, (pieces)]."""
    ids = self.tokenize(text)
    return ids.with_flat_values(tf.gather(self._vocab_tokens, ids.flat_values))

  def bert_inputs(self, text_a, text_b=None, max_seq_length=128):
    """Raw text -> BERT features, as run_classifier's convert_single_example.

    Args:
      text_a: tf.string Tensor [batch].
      text_b: optional tf.string Tensor [batch], the second segment.
      max_seq_length: int.

    Returns:
      dict of int32 Tensors [batch, max_seq_length]: "input_ids",
      "input_mask", "segment_ids" (see `tokenization.packing`).
    """
    if self.cls_id is None or self.sep_id is None:
      raise InputError("--vocab_file=%s: needs [CLS] and [SEP] entries to "
                       "build BERT inputs" % self._vocab_file)
    ids_b = None if text_b is None else self.tokenize(text_b)
    return packing.pack_inputs(self.tokenize(text_a), ids_b, max_seq_length,
                               cls_id=self.cls_id, sep_id=self.sep_id)
