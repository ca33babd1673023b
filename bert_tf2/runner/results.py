"""Writes evaluation results as the original scripts did."""

import numpy as np

from bert_tf2.common import atomic_write_text


def format_eval_results(results):
  """Sorted "key = value" lines, one per result, as the original wrote them.

  Example:
    >>> print(format_eval_results({"loss": 0.5, "global_step": 10}), end="")
    global_step = 10
    loss = 0.5
  """
  lines = []
  for key in sorted(results):
    value = results[key]
    if isinstance(value, np.ndarray) and value.shape == ():
      value = value[()]  # numpy scalar: str() prints float32 as the TF1 code.
    lines.append("%s = %s\n" % (key, str(value)))
  return "".join(lines)


def write_eval_results(path, results):
  """Writes `results` (dict) to `path` atomically; see format_eval_results."""
  atomic_write_text(path, format_eval_results(results))
