"""Pairing our outputs with the original's, lengths checked first.

`zip` stops at the shorter list, so a comparison by `zip` alone passes when
the original produced nothing (or less than we did). Every golden
comparison of sequences pairs them with `paired`.
"""


def paired(ours, theirs, what="outputs"):
  """zip(ours, theirs) after checking both are non-empty and equally long.

  Args:
    ours: sequence of our outputs (or of the inputs they come from).
    theirs: sequence of the original's outputs, one per item of ours.
    what: how the failure message names them.

  Raises:
    AssertionError: theirs is empty, or the lengths differ.

  Example:
    >>> list(paired([1, 2], ["a", "b"]))
    [(1, 'a'), (2, 'b')]
  """
  ours, theirs = list(ours), list(theirs)
  assert theirs, "%s: the original gave nothing to compare with" % what
  assert len(ours) == len(theirs), "%s: %d of ours, %d of the original's" % (
      what, len(ours), len(theirs))
  return zip(ours, theirs)
