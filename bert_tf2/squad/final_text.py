"""Projecting a predicted WordPiece span back onto the original words.

`squad.serving.final_text_in_graph` is the same rule in graph. (No
TensorFlow here: evaluate_squad.py runs without it.)
"""

import collections

from absl import logging

import tokenization


def _strip_spaces(text):
  """Drops " " from text; returns (text, {stripped index: original index})."""
  chars = []
  ns_to_s_map = collections.OrderedDict()
  for i, c in enumerate(text):
    if c == " ":
      continue
    ns_to_s_map[len(chars)] = i
    chars.append(c)
  return "".join(chars), ns_to_s_map


def get_final_text(pred_text, orig_text, do_lower_case, verbose_logging=False):
  """Maps normalized predicted text back onto the original words.

  `orig_text` is run through BasicTokenizer and aligned with `pred_text`
  character by character after removing spaces; if that fails, `orig_text`
  is returned.

  Example:
    >>> get_final_text("steve smith", "Steve Smith's", True)  # doctest: +SKIP
    'Steve Smith'
  """
  tokenizer = tokenization.BasicTokenizer(do_lower_case=do_lower_case)
  tok_text = " ".join(tokenizer.tokenize(orig_text))

  start_position = tok_text.find(pred_text)
  if start_position == -1:
    if verbose_logging:
      logging.info("Unable to find text: '%s' in '%s'", pred_text, orig_text)
    return orig_text
  end_position = start_position + len(pred_text) - 1

  orig_ns_text, orig_ns_to_s_map = _strip_spaces(orig_text)
  tok_ns_text, tok_ns_to_s_map = _strip_spaces(tok_text)
  if len(orig_ns_text) != len(tok_ns_text):
    if verbose_logging:
      logging.info("Length not equal after stripping spaces: '%s' vs '%s'",
                   orig_ns_text, tok_ns_text)
    return orig_text

  tok_s_to_ns_map = {s: ns for ns, s in tok_ns_to_s_map.items()}

  def _to_orig(position):
    ns = tok_s_to_ns_map.get(position)
    return None if ns is None else orig_ns_to_s_map.get(ns)

  orig_start_position = _to_orig(start_position)
  if orig_start_position is None:
    if verbose_logging:
      logging.info("Couldn't map start position")
    return orig_text
  orig_end_position = _to_orig(end_position)
  if orig_end_position is None:
    if verbose_logging:
      logging.info("Couldn't map end position")
    return orig_text
  return orig_text[orig_start_position:(orig_end_position + 1)]

