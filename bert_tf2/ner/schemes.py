"""Tag schemes (BIO, IOB1, BIOES) and chunks with conlleval's semantics.

A tag is `O` or `P-TYPE` with the prefix P in B, I, E, S (conlleval splits
on the first "-"). The three schemes read are
  BIO (IOB2)  every chunk starts with B-;
  IOB1        chunks start with I-, B- only between two adjacent chunks of
              one type;
  BIOES       B- begin, I- inside, E- end, S- single-token chunk.
conlleval.pl's start/end-of-chunk rules read all three (an "I- without
B-" starts a chunk; we count such starts), plus the usual S- rule (S- both
starts and ends a chunk).

Example:
  >>> chunks(["B-PER", "I-PER", "O", "I-LOC", "B-LOC", "S-ORG"])
  [('PER', 0, 2), ('LOC', 3, 4), ('LOC', 4, 5), ('ORG', 5, 6)]
  >>> count_orphan_starts(["O", "I-LOC", "I-LOC", "B-PER", "I-ORG"])
  2
"""

import re

_TAG = re.compile(r"^([BIES])-(.+)$")


def is_valid_tag(tag):
  """True for O and B-/I-/E-/S-TYPE."""
  return tag == "O" or _TAG.match(tag) is not None


def split_tag(tag):
  """'B-PER' -> ('B', 'PER'); 'O' -> ('O', '')."""
  if tag == "O":
    return "O", ""
  prefix, _, kind = tag.partition("-")
  return prefix, kind


def _starts(prev_prefix, prefix, prev_type, kind):
  if prefix in ("B", "S"):
    return True
  if prefix in ("I", "E") and prev_prefix in ("O", "E", "S"):
    return True
  return prefix != "O" and prev_type != kind


def _ends(prev_prefix, prefix, prev_type, kind):
  if prev_prefix in ("E", "S"):
    return True
  if prev_prefix in ("B", "I") and prefix in ("B", "S", "O"):
    return True
  return prev_prefix != "O" and prev_type != kind


def chunks(tags):
  """list of tags -> list of (type, start, end) chunks, end exclusive."""
  out = []
  start = None
  prev_prefix, prev_type = "O", ""
  for i, tag in enumerate(list(tags) + ["O"]):
    prefix, kind = split_tag(tag)
    if start is not None and _ends(prev_prefix, prefix, prev_type, kind):
      out.append((prev_type, start, i))
      start = None
    if i < len(tags) and _starts(prev_prefix, prefix, prev_type, kind):
      start = i
    prev_prefix, prev_type = prefix, kind
  return out


def count_orphan_starts(tags):
  """Chunks that start with I- or E- (no B-/S-): conlleval's 'I- without B-'
  (in IOB1 the normal chunk starts)."""
  n = 0
  prev_prefix, prev_type = "O", ""
  for tag in tags:
    prefix, kind = split_tag(tag)
    if prefix in ("I", "E") and _starts(prev_prefix, prefix, prev_type, kind):
      n += 1
    prev_prefix, prev_type = prefix, kind
  return n


def detect_scheme(tag_sequences):
  """'BIOES' if any E-/S- tag, 'BIO' if every chunk starts with B-, or
  'IOB1' when some chunk starts with I-."""
  orphans = 0
  for tags in tag_sequences:
    if any(t[:2] in ("E-", "S-") for t in tags):
      return "BIOES"
    orphans += count_orphan_starts(tags)
  return "IOB1" if orphans else "BIO"
