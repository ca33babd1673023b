"""Raw texts given in Python, checked: the one place every Python path
(the predictors, `EntityTagger`, the raw-string Keras models, their
`fit` / `evaluate` / `predict`) reads its texts with.

Each reads them with `check_text` /
`check_texts` / `check_nested_texts`: a `str` (a lone surrogate, which
has no UTF-8 form, refused), or `bytes` that are valid UTF-8 (decoded);
anything else (None, a number, a list where the others are texts) or
invalid UTF-8 is one `InputError` naming the input and its index
("texts[2]: not valid UTF-8 (byte 0xff at offset 1)"). What each input
gets (as the SavedModel): a list of texts or of (text_a, text_b) pairs is
answered; an empty list gets an empty answer from the predictors (`[]`)
and one line from the Keras models' `predict` (Keras has no empty
batch); a bare string is refused ("wrap one text in a list"); NUL and
other control characters are removed by the tokenizer, as the original's
`_clean_text` does; a 1 MB string is answered (truncated to
max_seq_length, or cut into windows where the run used them).

The raw-text SavedModels check the same inputs in the graph
(`bert_tf2.common.raw_text_serving.check_text_inputs`).
"""

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
  """Validates a list of texts (or of (text_a, text_b) pairs); bytes are
  decoded (`check_text`).

  Returns:
    list of (text_a, text_b or None), str each.

  Raises:
    InputError: `texts` is a single string, not a list, or holds an item
      that is neither a text nor (with pairs=True) a pair of texts, or
      bytes that are not valid UTF-8 (named by index: "texts[3]",
      "texts[3][1]").

  >>> check_texts(["a", (b"b", "c")])
  [('a', None), ('b', 'c')]
  """
  if _is_text(texts):
    raise InputError("%s: expected a list of texts, got a single %s (wrap "
                     "one text in a list: [text])"
                     % (what, type(texts).__name__))
  if not isinstance(texts, (list, tuple)):
    raise InputError("%s: expected a list of strings%s, got %s" % (
        what, " or (text_a, text_b) pairs" if pairs else "",
        type(texts).__name__))
  out = []
  for i, item in enumerate(texts):
    name = "%s[%d]" % (what, i)
    if pairs and isinstance(item, (list, tuple)) and len(item) == 2:
      out.append((check_text(item[0], name + "[0]"),
                  check_text(item[1], name + "[1]")))
    elif isinstance(item, (str, bytes, bytearray)):
      out.append((check_text(item, name), None))
    else:
      raise InputError("%s: expected a str%s, got %s %s" % (
          name, " or a (str, str) pair" if pairs else "",
          type(item).__name__, _show_item(item)))
  return out


def _show_item(item):
  """repr(item), cut to 40 characters."""
  text = repr(item)
  return text if len(text) <= 40 else text[:37] + "..."


def _is_text(x):
  return isinstance(x, (str, bytes, bytearray))


def _is_list(x):
  return isinstance(x, (list, tuple))


def _nested(x, what):
  if hasattr(x, "dtype") and hasattr(x, "tolist") and x.dtype.kind in "OSU":
    x = x.tolist()  # numpy arrays of text.
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
  numpy arrays of str/bytes count as lists; Tensors and Datasets are
  returned as they are (the graph checks them). None, a bare string, an
  empty list, a leaf that is not a text (None, a number) and lists mixed
  with texts at one level are each one InputError line naming the item.

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
  if hasattr(x, "dtype") and hasattr(x, "tolist") and x.dtype.kind in "OSU":
    x = x.tolist()
  if _is_list(x) and (not x or all(_is_list(c) and not c for c in x)):
    raise InputError("%s: no texts (an empty list); give at least one (the "
                     "predictors answer [] for [])" % what)
  return _nested(x, what)


def is_empty(x):
  """Whether x is an empty batch: [] (or columns that are all empty, as
  SQuAD's ([], []))."""
  return _is_list(x) and all(_is_list(c) and not c for c in x)
