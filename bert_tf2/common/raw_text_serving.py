"""Raw-text input checks (in Python and in the graph) and bounded-memory
batching for raw-text SavedModels.

In Python, every raw-text entry point (the predictors, `EntityTagger`, the
raw-string Keras models) reads its texts with `check_text` /
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

In the graph:

Every raw-string serving signature (classifier, NER, SQuAD, features, and
any task added later: multiple choice, sentence embeddings) declares its
text arguments with TEXT_SPEC and uses the two functions of this module, so
that all of them behave alike:

  check_text_inputs(text_a, text_b, ...)
      each input a vector (rank 1) of one common length, every string valid
      UTF-8; otherwise an InvalidArgumentError whose message names the
      problem ("... must be a vector (rank 1) of strings", "... is not
      valid UTF-8", "... must have the same length"). An empty batch
      passes: the signature answers it with empty outputs.
  call_in_chunks(fn, inputs, chunk_size)
      fn (the model) applied to at most chunk_size rows at a time, in a
      sequential tf.while_loop, the outputs concatenated: a batch of 10,000
      texts (or a 20,000-character text cut into many windows) needs the
      memory of one chunk, not of the whole batch.

Written with tf.while_loop rather than tf.data: the loop runs inside the
serving graph with the model's variables captured, and the outputs keep
their static shapes.

Example:
  >>> texts = check_text_inputs(tf.constant(["a", "b", "c"]))[0]
  >>> fn = lambda x: {"twice": 2 * x, "rows": tf.fill(tf.shape(x), tf.shape(x)[0])}
  >>> out = call_in_chunks(fn, tf.range(5), chunk_size=2)
  >>> out["twice"].numpy().tolist(), out["rows"].numpy().tolist()
  ([0, 2, 4, 6, 8], [2, 2, 2, 2, 1])
  >>> call_in_chunks(fn, tf.zeros([0], tf.int32), 2)["twice"].shape.as_list()
  [0]
"""

import tensorflow as tf

from tokenization.errors import InputError

# The spec of every raw-text argument of a serving signature: rank left
# open, checked in graph by check_text_inputs.
TEXT_SPEC = tf.TensorSpec(None, tf.string)

# Rows per model call in the serving signatures (the Python predictors'
# default batch_size).
DEFAULT_CHUNK_SIZE = 32


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


def check_text_inputs(*texts, names=None):
  """Asserts raw-text inputs are valid; returns them (after the checks).

  Args:
    *texts: tf.string Tensors, each meant to be [batch].
    names: the signature's argument names, for the messages (default
      text, text_b, ...).

  Returns:
    tuple of the same Tensors, [batch] each, that depend on the checks.

  Raises (when the graph runs):
    tf.errors.InvalidArgumentError: an input is not a vector, the inputs
      differ in length, or a string is not valid UTF-8.
  """
  names = names or ["text"] + ["text_%d" % i for i in range(1, len(texts))]
  checked = []
  for name, text in zip(names, texts):
    # TEXT_SPEC leaves the rank open so that this check sees the real one
    # (with a [None] spec a loaded signature passes a 2-D input through and
    # TensorFlow folds tf.rank to 1).
    rank_ok = tf.debugging.Assert(
        tf.equal(tf.rank(text), 1),
        ["%s must be a vector (rank 1) of strings, got shape" % name,
         tf.shape(text)])
    with tf.control_dependencies([rank_ok]):
      flat = tf.reshape(text, [-1])
      # Valid UTF-8 transcodes to itself; invalid bytes become U+FFFD.
      same = tf.equal(tf.strings.unicode_transcode(
          flat, "UTF-8", "UTF-8", errors="replace",
          replacement_char=0xFFFD), flat)
      utf8_ok = tf.debugging.Assert(
          tf.reduce_all(same),
          ["%s is not valid UTF-8 at positions" % name,
           tf.where(tf.logical_not(same))[:, 0]])
    with tf.control_dependencies([utf8_ok]):
      checked.append(tf.identity(flat))
  if len(checked) > 1:
    first = tf.shape(checked[0])[0]
    deps = [tf.debugging.assert_equal(
        tf.shape(t)[0], first,
        message="%s and %s must have the same length" % (names[0], name))
            for name, t in zip(names[1:], checked[1:])]
    with tf.control_dependencies(deps):
      checked = [tf.identity(t) for t in checked]
  return tuple(checked)


def _rows(tensor, begin, size):
  return tensor[begin:begin + size]


def call_in_chunks(fn, inputs, chunk_size=DEFAULT_CHUNK_SIZE):
  """fn(inputs) computed chunk_size rows at a time; bounded memory.

  Args:
    fn: function of a nest (like `inputs`) of Tensors [rows, ...] returning
      a nest of Tensors [rows, ...] (row i of the output for row i of the
      input; every row independent of the others, as BERT's are).
    inputs: nest of Tensors with the same leading dimension n.
    chunk_size: int, the most rows fn sees in one call.

  Returns:
    fn's nest of outputs, [n, ...] each. For n == 0 fn runs once on one
    all-zero row and the outputs are cut back to 0 rows, so their shapes
    and types are those of a non-empty batch.
  """
  chunk_size = int(chunk_size)
  if chunk_size < 1:
    raise ValueError("chunk_size=%d: must be >= 1" % chunk_size)
  flat = tf.nest.flatten(inputs)
  n = tf.shape(flat[0])[0]
  # The first chunk outside the loop gives the outputs' structure; an empty
  # batch runs one zero row (fn may not accept zero rows).
  first_in = tf.nest.map_structure(
      lambda t: tf.cond(n > 0, lambda: _rows(t, 0, chunk_size),
                        lambda: tf.zeros(tf.concat([[1], tf.shape(t)[1:]], 0),
                                         t.dtype)), inputs)
  first_out = fn(first_in)
  first_flat = [o[:tf.minimum(n, chunk_size)]
                for o in tf.nest.flatten(first_out)]
  num_chunks = (n + chunk_size - 1) // chunk_size
  arrays = [tf.TensorArray(o.dtype, size=tf.maximum(num_chunks, 1),
                           infer_shape=False,
                           element_shape=tf.TensorShape([None]).concatenate(
                               o.shape[1:])).write(0, o)
            for o in first_flat]

  def body(i, arrays):
    piece = tf.nest.map_structure(
        lambda t: _rows(t, i * chunk_size, chunk_size), inputs)
    out = tf.nest.flatten(fn(piece))
    return i + 1, [a.write(i, o) for a, o in zip(arrays, out)]

  _, arrays = tf.while_loop(lambda i, _: i < num_chunks, body,
                            (tf.constant(1), arrays),
                            parallel_iterations=1)
  merged = []
  for a, o in zip(arrays, first_flat):
    t = a.concat()
    t.set_shape(tf.TensorShape([None]).concatenate(o.shape[1:]))
    merged.append(t)
  return tf.nest.pack_sequence_as(first_out, merged)
