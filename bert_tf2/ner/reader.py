"""CoNLL-style NER files: one token and its tag per line, blank between
sentences.

Each non-blank line is whitespace-separated fields: the token first, the tag
last (columns in between, e.g. CoNLL-2003's POS and chunk tags, are
ignored). `-DOCSTART-` lines are skipped. Tags must be O or B-/I-/E-/S-TYPE
(BIO, IOB1, BIOES; see schemes.py); anything else is an InputError naming
the file and line.

Example:
  >>> import os, tempfile
  >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
  >>> _ = open(path, "w").write("EU B-ORG\\nrejects O\\n\\nPeter B-PER\\n")
  >>> [(s.tokens, s.tags, s.line) for s in read_conll(path)]
  [(['EU', 'rejects'], ['B-ORG', 'O'], 1), (['Peter'], ['B-PER'], 4)]
"""

import collections

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.ner import schemes

Sentence = collections.namedtuple("Sentence", ["tokens", "tags", "line"])


def read_conll(path, require_tags=True):
  """Reads `path`; returns a list of Sentence (line = first line number).
  A token without a tag is an error if require_tags, else tagged None."""
  if not tf.io.gfile.exists(path):
    raise InputError("%s: file not found" % path)
  sentences = []
  tokens, tags, first = [], [], 0
  with tf.io.gfile.GFile(path, "rb") as f:
    for number, raw in enumerate(f, 1):
      try:
        line = raw.decode("utf-8").strip()
      except UnicodeDecodeError:
        raise InputError("%s:%d: not valid UTF-8" % (path, number)) from None
      fields = line.split()
      if not fields or fields[0] == "-DOCSTART-":
        if tokens:
          sentences.append(Sentence(tokens, tags, first))
        tokens, tags = [], []
        continue
      if len(fields) < 2:
        if require_tags:
          raise InputError("%s:%d: %r has no tag (expected 'token tag')" %
                           (path, number, line))
        tag = None
      else:
        tag = fields[-1]
        if not schemes.is_valid_tag(tag):
          raise InputError(
              "%s:%d: tag %r is not O or B-/I-/E-/S-TYPE (unknown tag "
              "scheme; BIO, IOB1 and BIOES are read)" % (path, number, tag))
      if not tokens:
        first = number
      tokens.append(fields[0])
      tags.append(tag)
  if tokens:
    sentences.append(Sentence(tokens, tags, first))
  return sentences


def read_labels_file(path):
  """One tag per line; returns the list with 'O' first."""
  if not tf.io.gfile.exists(path):
    raise InputError("--labels_file=%s: file not found" % path)
  with tf.io.gfile.GFile(path, "r") as f:
    labels = [line.strip() for line in f if line.strip()]
  for i, tag in enumerate(labels):
    if not schemes.is_valid_tag(tag):
      raise InputError("--labels_file=%s:%d: tag %r is not O or "
                       "B-/I-/E-/S-TYPE" % (path, i + 1, tag))
  if len(set(labels)) != len(labels):
    raise InputError("--labels_file=%s: a tag is listed twice" % path)
  return ["O"] + [t for t in labels if t != "O"]


def labels_from_sentences(sentences, path):
  """'O' then the sorted tags of the training sentences; InputError if
  there is no entity tag at all."""
  tags = {t for s in sentences for t in s.tags}
  tags.discard("O")
  if not tags:
    raise InputError("%s: every sentence is only O (no entity tag to learn)"
                     % path)
  return ["O"] + sorted(tags, key=lambda t: (schemes.split_tag(t)[1], t))


def check_known_tags(sentences, label_list, path):
  """InputError at the first tag not in `label_list` (file and line)."""
  known = set(label_list)
  for s in sentences:
    for k, tag in enumerate(s.tags):
      if tag is not None and tag not in known:
        raise InputError("%s:%d: tag %r is not in the label list %s (from "
                         "the training file or --labels_file)" %
                         (path, s.line + k, tag, label_list))
