"""Raw texts given in Python, checked: the one place every Python path
(the predictors, `EntityTagger`, the raw-string Keras models) reads its
texts with.

A text is a `str` (a lone surrogate refused) or `bytes` that are valid
UTF-8 (decoded); anything else (None, a number, a list where the others
are texts) or invalid UTF-8 is one `InputError` naming the input and its
index ("texts[2]: not valid UTF-8 (byte 0xff at offset 1)"). A bare string
is refused ("wrap one text in a list"). Examples of one or two texts have
one contract on every path, `check_examples`. The raw-text SavedModels
check the same inputs in the graph (`raw_text_serving.check_text_inputs`).
"""

import collections

import tensorflow as tf

from tokenization.errors import InputError


def check_text(item, what):
  r"""`item` as a str: a str, or bytes decoded as UTF-8.

  Raises:
    InputError: `item` is neither, or its bytes are not valid UTF-8 (the
      message names `what`, e.g. "texts[2]").

  >>> check_text("Ann", "texts[0]"), check_text(b"B\xc3\xb6b", "texts[1]")
  ('Ann', 'Böb')
  >>> check_text(b"\xffx", "texts[2]")
  Traceback (most recent call last):
  ...
  tokenization.errors.InputError: texts[2]: not valid UTF-8 (byte 0xff at offset 0)
  """
  if isinstance(item, str):
    try:
      item.encode("utf-8")
    except UnicodeEncodeError as e:
      raise InputError("%s: not valid Unicode (lone surrogate U+%04X at "
                       "offset %d)" % (what, ord(item[e.start]), e.start)
                       ) from None
    return item
  if isinstance(item, (bytes, bytearray)):
    try:
      return bytes(item).decode("utf-8")
    except UnicodeDecodeError as e:
      raise InputError("%s: not valid UTF-8 (byte 0x%02x at offset %d)"
                       % (what, item[e.start], e.start)) from None
  raise InputError("%s: expected a str (or UTF-8 bytes), got %s"
                   % (what, type(item).__name__))


def check_texts(texts, what="texts", pairs=True):
  """Validates a list of texts (pairs=False) or of texts and (text_a,
  text_b) pairs (pairs=True: `check_examples`); bytes are decoded.

  Returns:
    list of (text_a, text_b or None), str each.

  Raises:
    InputError: one line naming the item by index ("texts[3][1]").

  >>> check_texts(["a", (b"b", "c")])
  [('a', None), ('b', 'c')]
  """
  if pairs:
    return check_examples(texts, what)
  if _is_text(texts):
    raise InputError("%s: expected a list of texts, got a single %s (wrap "
                     "one text in a list: [text])"
                     % (what, type(texts).__name__))
  if not isinstance(texts, (list, tuple)):
    raise InputError("%s: expected a list of strings, got %s"
                     % (what, type(texts).__name__))
  out = []
  for i, item in enumerate(texts):
    name = "%s[%d]" % (what, i)
    if not isinstance(item, (str, bytes, bytearray)):
      raise InputError("%s: expected a str, got %s %s" % (
          name, type(item).__name__, _show_item(item)))
    out.append((check_text(item, name), None))
  return out


# A task's words for a pair and its columns (`check_examples`), and
# whether a lone text is an example (a classifier's) or not (SQuAD's).
Examples = collections.namedtuple("Examples", "pair columns single")
TEXTS_OR_PAIRS = Examples("(text_a, text_b) pair", ("texts_a", "texts_b"),
                          True)
QUESTION_CONTEXT = Examples("(question, context) pair",
                            ("questions", "contexts"), False)


def check_examples(x, what="x", kind=TEXTS_OR_PAIRS):
  """The one input contract of a task whose examples are a text or a pair
  of texts, on every Python path.

  x is either
    * a list of examples (a tuple or a 1-D numpy array of them too): each
      a text, or a pair of texts (a tuple or list of two); texts and
      pairs may be mixed where a lone text is an example (`kind.single`);
    * or a tuple of two columns (lists, tuples or arrays of texts, of one
      length): Keras' x=(texts_a, texts_b). A tuple whose items are all
      sequences is read as columns, anything else as a list of examples.

  Returns:
    list of (text_a, text_b or None) in the order of x ([] for []).

  Raises:
    InputError: one line naming `what` and the item ("x[2]", "x[1][0]").

  >>> check_examples(["a", (b"b", "c")])
  [('a', None), ('b', 'c')]
  >>> check_examples((["q1", "q2"], ("c1", "c2")), kind=QUESTION_CONTEXT)
  [('q1', 'c1'), ('q2', 'c2')]
  >>> try:
  ...   check_examples(["who?"], kind=QUESTION_CONTEXT)
  ... except InputError as e:
  ...   print(e)
  x[0]: expected a (question, context) pair, got str 'who?'
  """
  x = _as_list(x)
  accepted = "texts or %ss" % kind.pair if kind.single else "%ss" % kind.pair
  if x is None or _is_text(x) or not _is_list(x):
    got = "None" if x is None else type(x).__name__
    if _is_text(x):
      got = "a single %s (wrap one %s in a list: [%s])" % (
          got, "text" if kind.single else "pair",
          "text" if kind.single else kind.pair[:-len(" pair")])
    raise InputError("%s: expected a list of %s, got %s" % (what, accepted,
                                                            got))
  if isinstance(x, tuple) and x and all(_is_list(_as_list(c)) for c in x):
    return _columns([_as_list(c) for c in x], what, kind)
  return [_example(item, "%s[%d]" % (what, i), kind)
          for i, item in enumerate(x)]


def _as_list(x):
  """A numpy array of texts as a list (of lists); anything else as is."""
  if hasattr(x, "dtype") and hasattr(x, "tolist") and x.dtype.kind in "OSU":
    return x.tolist()
  return x


def _example(item, name, kind):
  """One example of `check_examples`: (text_a, text_b or None)."""
  item = _as_list(item)
  if _is_list(item) and len(item) == 2:
    return check_text(item[0], name + "[0]"), check_text(item[1],
                                                        name + "[1]")
  if _is_text(item) and kind.single:
    return check_text(item, name), None
  raise InputError("%s: expected %sa %s, got %s" % (
      name, "a str or " if kind.single else "", kind.pair,
      "None" if item is None else "%s %s" % (type(item).__name__,
                                             _show_item(item))))


def _columns(columns, what, kind):
  """The examples of columns (texts_a, texts_b) (`check_examples`)."""
  if len(columns) != 2:
    raise InputError("%s: a tuple of %d sequences; a tuple is read as the "
                     "columns (%s), a list as examples: give a list of %ss"
                     % (what, len(columns), ", ".join(kind.columns),
                        kind.pair))
  if len(columns[0]) != len(columns[1]):
    raise InputError("%s: %d %s but %d %s" % (
        what, len(columns[0]), kind.columns[0], len(columns[1]),
        kind.columns[1]))
  return [(check_text(a, "%s[0][%d]" % (what, i)),
           check_text(b, "%s[1][%d]" % (what, i)))
          for i, (a, b) in enumerate(zip(*columns))]


def as_columns(examples):
  """`check_examples`' examples as a text model takes them: a list of
  texts when none has a text_b, else the columns (texts_a, texts_b), ""
  for a missing text_b (packed as the text alone).

  >>> as_columns([("a", None), ("b", None)])
  ['a', 'b']
  >>> as_columns([("a", None), ("b", "c")])
  (['a', 'b'], ['', 'c'])
  """
  if all(b is None for _, b in examples):
    return [a for a, _ in examples]
  return ([a for a, _ in examples], ["" if b is None else b
                                     for _, b in examples])


def _show_item(item):
  """repr(item), cut to 40 characters."""
  text = repr(item)
  return text if len(text) <= 40 else text[:37] + "..."


def _is_text(x):
  return isinstance(x, (str, bytes, bytearray))


def _is_list(x):
  return isinstance(x, (list, tuple))


def _nested(x, what):
  x = _as_list(x)
  if _is_text(x):
    return check_text(x, what)
  if not _is_list(x):
    raise InputError("%s: expected a str (or UTF-8 bytes), got %s"
                     % (what, "None" if x is None else type(x).__name__))
  out = []
  for i, item in enumerate(x):
    if i and _is_list(item) != _is_list(x[0]) and not (
        hasattr(item, "tolist") or hasattr(x[0], "tolist")):
      raise InputError("%s[%d]: a %s among %s (%s[0] is one); give texts "
                       "only or (text_a, text_b) pairs only" % (
                           what, i, type(item).__name__,
                           "lists" if _is_list(x[0]) else "texts", what))
    out.append(_nested(item, "%s[%d]" % (what, i)))
  return tuple(out) if isinstance(x, tuple) else out


def check_nested_texts(x, what="x"):
  """A nest of lists/tuples of texts with bytes decoded (`check_text`);
  numpy arrays of str/bytes count as lists; Tensors and Datasets as they
  are. None, a bare string, an empty list, a leaf that is not a text and
  lists mixed with texts at one level are each one InputError line.

  >>> check_nested_texts(([b"a", "b"], [["c", b"d"]]))
  (['a', 'b'], [['c', 'd']])
  >>> try:
  ...   check_nested_texts(["a", None])
  ... except InputError as e:
  ...   print(e)
  x[1]: expected a str (or UTF-8 bytes), got None
  """
  if isinstance(x, (tf.Tensor, tf.data.Dataset, tf.RaggedTensor)):
    return x
  if x is None:
    raise InputError("%s: expected a list of texts, got None" % what)
  if _is_text(x):
    raise InputError("%s: expected a list of texts, got a single %s (wrap "
                     "one text in a list: [text])" % (what, type(x).__name__))
  x = _as_list(x)
  if is_empty(x):
    raise InputError("%s: no texts (an empty list); give at least one (the "
                     "predictors answer [] for [])" % what)
  return _nested(x, what)


def is_empty(x):
  """Whether x is an empty batch: [] (or columns that are all empty, as
  SQuAD's ([], []))."""
  return _is_list(x) and all(_is_list(c) and not c for c in x)
