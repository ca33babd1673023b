"""Raw-text examples shortest first: `length_order`, `take`.

A text model trims each batch to its longest text, so examples batched in
order of length pad less; BERT has no batch statistics, so the answers are
the same (`TextModel.predict` puts them back in input order).

>>> x = ["a longer text", "short", ("a", "pr")]
>>> order = length_order(x)
>>> order, take(x, order)
([2, 1, 0], [('a', 'pr'), 'short', 'a longer text'])
"""


def _characters(example):
  """The characters of every text of a nest of texts."""
  if isinstance(example, (str, bytes)):
    return len(example)
  return sum(_characters(e) for e in example)


def rows(x):
  """x's examples: a list's items; a tuple of columns' rows."""
  return list(zip(*x)) if isinstance(x, tuple) else x


def length_order(x, lengths=None):
  """The order of x's examples, shortest first (a stable sort).

  x: a list of examples (each a text or a nest of texts) or a tuple of
  columns (row i of each is example i), as a text model's `examples`
  gives them. lengths: one number per example, what the model will run
  (`TextModel.example_lengths`: word pieces); None: characters.

  >>> length_order(["ccc", "a", ("bb", "")])
  [1, 2, 0]
  >>> length_order((["aaa", "b"], [["x"], ["y", "z"]]))
  [1, 0]
  >>> length_order(["ccc", "a", "bb"], lengths=[2, 9, 2])
  [0, 2, 1]
  """
  examples = rows(x)
  if lengths is None:
    lengths = [_characters(e) for e in examples]
  lengths = [int(n) for n in lengths]
  if len(lengths) != len(examples):
    raise ValueError("length_order: %d lengths for %d examples"
                     % (len(lengths), len(examples)))
  return sorted(range(len(lengths)), key=lengths.__getitem__)


def take(x, order):
  """x's examples in `order` (a list's items; each column of a tuple).

  >>> take((["a", "b"], ["c", "d"]), [1, 0])
  (['b', 'a'], ['d', 'c'])
  """
  if isinstance(x, tuple):
    return tuple([column[i] for i in order] for column in x)
  return [x[i] for i in order]
