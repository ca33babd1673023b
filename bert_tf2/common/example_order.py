"""Raw-text examples shortest first: `length_order`, `take`, `in_input_order`.

A text model trims each batch to its longest text
(`TextModel.task_features`), so examples batched in order of length pad
less; BERT has no batch statistics, so an example's answer does not
depend on the other examples of its batch, and the answers go back in
input order. `TextModel.predict` and `TextPredictor.predict` use these;
token-id arrays are sorted by `bert_tf2.predict.batching.run_batches`.

>>> x = ["a longer text", "short", ("a", "pr")]
>>> order = length_order(x)
>>> order, take(x, order)
([2, 1, 0], [('a', 'pr'), 'short', 'a longer text'])
>>> in_input_order(["pair!", "short!", "longer!"], order)
['longer!', 'short!', 'pair!']
"""


def _characters(example):
  """The characters of every text of a nest of texts."""
  if isinstance(example, (str, bytes)):
    return len(example)
  return sum(_characters(e) for e in example)


def _rows(x):
  """x's examples: a list's items; a tuple of columns' rows."""
  return list(zip(*x)) if isinstance(x, tuple) else x


def length_order(x):
  """The order of x's examples, shortest first by characters (a stable
  sort), so that a text model that trims each batch to its longest text
  (`TextModel.task_features`) pads each batch to texts of similar length.

  x: a list of examples (each a text or a nest of texts) or a tuple of
  columns (row i of each is example i), as a text model's `examples`
  gives them.

  >>> length_order(["ccc", "a", ("bb", "")])
  [1, 2, 0]
  >>> length_order((["aaa", "b"], [["x"], ["y", "z"]]))
  [1, 0]
  """
  rows = _rows(x)
  return sorted(range(len(rows)), key=lambda i: _characters(rows[i]))


def take(x, order):
  """x's examples in `order` (a list's items; each column of a tuple).

  >>> take((["a", "b"], ["c", "d"]), [1, 0])
  (['b', 'a'], ['d', 'c'])
  """
  if isinstance(x, tuple):
    return tuple([column[i] for i in order] for column in x)
  return [x[i] for i in order]


def in_input_order(answers, order):
  """answers, one per example of `take(x, order)`, in the order of x.

  >>> in_input_order(["b", "a"], [1, 0])
  ['a', 'b']
  """
  out = [None] * len(order)
  for answer, i in zip(answers, order, strict=True):
    out[i] = answer
  return out
