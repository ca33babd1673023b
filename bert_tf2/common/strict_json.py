"""Strict JSON for the records a run keeps (model.json, predictor.json):
what Python's `json` accepts but a record written by this code never holds
is refused in one `InputError` line naming the file, before the parser
could recurse or allocate: more than MAX_BYTES, nesting deeper than
MAX_DEPTH (counted on the raw text, strings blanked out), a key twice in
one object, NaN or Infinity, not UTF-8, not a JSON object.

Example:
  >>> parse("/run/model.json", b'{"task": "ner"}')
  {'task': 'ner'}
  >>> try:
  ...   parse("/run/model.json", b"[" * 20 + b"]" * 20)
  ... except InputError as e:
  ...   print(e)
  /run/model.json is damaged: JSON nested 20 deep (a record nests at most 8); rerun the training script on this --output_dir to rewrite it
"""

import json
import re

from tokenization.errors import InputError

MAX_BYTES = 4 << 20  # A record is a few KB (NER's transitions: tens).
MAX_DEPTH = 8        # The deepest record: model.allowed's rows (depth 5).
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _depth(text):
  """The deepest nesting of [ and { in JSON `text` (strings skipped)."""
  deepest = depth = 0
  for match in re.finditer(r"[\[\]{}]", _STRINGS.sub('""', text)):
    depth += 1 if match.group() in "[{" else -1
    deepest = max(deepest, depth)
  return deepest


def _no_duplicates(pairs):
  keys = [k for k, _ in pairs]
  if len(set(keys)) != len(keys):
    raise ValueError("duplicate key %r" % sorted(
        k for k in keys if keys.count(k) > 1)[0])
  return dict(pairs)


def _no_constant(name):
  raise ValueError("%s is not JSON" % name)


def parse(path, data):
  """The JSON object of model.json's bytes `data` (path names it)."""
  damaged = ("%s is damaged: %%s; rerun the training script on this "
             "--output_dir to rewrite it" % path)
  if len(data) > MAX_BYTES:
    raise InputError(damaged % ("%d bytes (a record is a few KB, at most %d)"
                                % (len(data), MAX_BYTES)))
  try:
    text = data.decode("utf-8")
  except UnicodeDecodeError as e:
    raise InputError(damaged % ("not UTF-8 (%s)" % e.reason)) from None
  depth = _depth(text)
  if depth > MAX_DEPTH:
    raise InputError(damaged % ("JSON nested %d deep (a record nests at "
                                "most %d)" % (depth, MAX_DEPTH)))
  try:
    record = json.loads(text, object_pairs_hook=_no_duplicates,
                        parse_constant=_no_constant)
  except ValueError as e:  # Empty, cut short, garbage, duplicate keys.
    raise InputError(damaged % ("not valid JSON (%s)" % (
        str(e).splitlines() or ["empty"])[0])) from None
  if not isinstance(record, dict):
    raise InputError(damaged % "not a JSON object")
  return record
