"""Learning a WordPiece vocabulary from a corpus (the library of create_vocab.py).

Words are counted after BERT's own basic tokenization (cleaning, CJK
splitting, punctuation splitting, and with `do_lower_case` lower-casing and
accent stripping), exactly as `FullTokenizer` will later split text, and the
counts go to tensorflow-text's WordPiece learner
(`tensorflow_text.tools.wordpiece_vocab.wordpiece_tokenizer_learner_lib`),
the algorithm behind its `bert_vocab_from_dataset`.

Layout of the written vocabulary (Google's, for the default 994 unused):

  0            [PAD]
  1 .. k       [unused0] .. [unused{k-1}],  k = min(num_unused, 99)
  k+1 .. k+4   [UNK] [CLS] [SEP] [MASK]     (ids 100-103 when k == 99)
  ...          the remaining [unused{k}] .. [unused{num_unused-1}]
  ...          every single character seen, then "##" + character, then
               learned pieces by decreasing frequency.

Example:
  >>> reserved_tokens(num_unused=2)
  ['[PAD]', '[unused0]', '[unused1]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
"""

import collections

from absl import logging

from tokenization.errors import InputError
from tokenization import fast

SPECIAL_TOKENS = ("[UNK]", "[CLS]", "[SEP]", "[MASK]")
GOOGLE_NUM_UNUSED_BEFORE_SPECIALS = 99


def reserved_tokens(num_unused):
  """The reserved head of the vocabulary (list of str), see module doc."""
  if num_unused < 0:
    raise InputError("--num_unused=%d: must be >= 0" % num_unused)
  head = min(num_unused, GOOGLE_NUM_UNUSED_BEFORE_SPECIALS)
  tokens = ["[PAD]"] + ["[unused%d]" % i for i in range(head)]
  tokens += list(SPECIAL_TOKENS)
  tokens += ["[unused%d]" % i for i in range(head, num_unused)]
  return tokens


def count_words(lines, do_lower_case=True):
  """Counter of basic tokens over an iterable of text lines (str)."""
  tokenize = fast.basic_tokenizer(do_lower_case)
  counts = collections.Counter()
  for line in lines:
    counts.update(tokenize(line))
  return counts


def learn_vocab(word_counts, vocab_size, num_unused=994,
                max_unique_chars=1000, min_count=10, max_token_length=50):
  """Learns a vocabulary (list of str, at most `vocab_size`) from counts.

  Args:
    word_counts: dict word -> count (basic tokens, see `count_words`).
    vocab_size: int, the most entries, reserved tokens included.
    num_unused: int, number of [unusedN] slots.
    max_unique_chars: int, the most distinct characters kept; words with
      rarer characters are not used for learning.
    min_count: int, lower bound of the learner's frequency threshold search.
    max_token_length: int, longer words are not used for learning.
  """
  reserved = reserved_tokens(num_unused)
  if vocab_size <= len(reserved):
    raise InputError("--vocab_size=%d: must exceed the %d reserved tokens "
                     "(lower --num_unused)" % (vocab_size, len(reserved)))
  if not word_counts:
    raise InputError("the input files contain no words")
  from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as learner  # pylint: disable=g-import-not-at-top,line-too-long
  vocab = learner.learn(
      dict(word_counts), vocab_size=vocab_size, reserved_tokens=reserved,
      lower_thresh=min_count, max_unique_chars=max_unique_chars,
      max_token_length=max_token_length, include_joiner_token=True,
      joiner="##")
  # A bare "##" can never be produced by the tokenizer; drop it.
  vocab = [t for t in vocab if t != "##"]
  if len(vocab) > vocab_size:
    logging.warning("learner returned %d entries; keeping the first %d",
                    len(vocab), vocab_size)
    vocab = vocab[:vocab_size]
  return vocab
