"""Checks around tokenization: checkpoint casing, preserved [unusedN] tokens.

`validate_case_matches_checkpoint(do_lower_case, init_checkpoint)` guesses a
Google checkpoint's casing from its directory name (e.g.
".../uncased_L-12_H-768_A-12/bert_model.ckpt") and raises `InputError` (a
ValueError, like the original) when `--do_lower_case` contradicts it. Unknown
names, and an empty `init_checkpoint`, pass silently.

Example:
  >>> validate_case_matches_checkpoint(True, "/m/uncased_L-12_H-768_A-12/bert_model.ckpt")
  >>> validate_case_matches_checkpoint(True, "/m/my_model/bert_model.ckpt")
"""

import re

from tokenization.errors import InputError

UNUSED_TOKEN_RE = re.compile(r"^\[unused\d+\]$")

_CHECKPOINT_DIR_RE = re.compile(r"^.*?([A-Za-z0-9_-]+)/bert_model.ckpt")

LOWER_CASED_MODELS = (
    "uncased_L-24_H-1024_A-16", "uncased_L-12_H-768_A-12",
    "multilingual_L-12_H-768_A-12", "chinese_L-12_H-768_A-12")

CASED_MODELS = (
    "cased_L-12_H-768_A-12", "cased_L-24_H-1024_A-16",
    "multi_cased_L-12_H-768_A-12")


def preserve_token(token, vocab, preserve_unused_tokens):
  """True if `token` is an "[unusedN]" entry of `vocab` to keep whole.

  Only when `preserve_unused_tokens` is set (the original's absl flag
  --preserve_unused_tokens, here a constructor argument).
  """
  if not preserve_unused_tokens or token not in vocab:
    return False
  return UNUSED_TOKEN_RE.search(token) is not None


def validate_case_matches_checkpoint(do_lower_case, init_checkpoint):
  """Raises InputError if `do_lower_case` contradicts a known checkpoint.

  Args:
    do_lower_case: bool, the --do_lower_case flag.
    init_checkpoint: str or None, the --init_checkpoint flag.
  """
  if not init_checkpoint:
    return
  match = _CHECKPOINT_DIR_RE.match(init_checkpoint)
  if match is None:
    return
  name = match.group(1)
  if name in LOWER_CASED_MODELS and not do_lower_case:
    kind, wanted = "uncased (lower-cased)", True
  elif name in CASED_MODELS and do_lower_case:
    kind, wanted = "cased", False
  else:
    return
  raise InputError(
      "--do_lower_case=%s does not match --init_checkpoint=%s: %r is a %s "
      "model, pass --do_lower_case=%s so fine-tuning sees text the way "
      "pre-training did" % (not wanted, init_checkpoint, name, kind, wanted))
