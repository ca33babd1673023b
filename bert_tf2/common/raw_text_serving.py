"""The raw-text SavedModels' own parts: their inputs checked in the graph
(`check_text_inputs`; in Python, `text_inputs`) and bounded-memory
batching (`call_in_chunks`). Every raw-string serving signature declares
its text arguments with TEXT_SPEC and uses both, so all behave alike.

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

# Every raw-text argument's spec: rank open, checked by check_text_inputs.
TEXT_SPEC = tf.TensorSpec(None, tf.string)

# Rows per model call in the serving signatures.
DEFAULT_CHUNK_SIZE = 32


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
      differ in length, or a string is not valid UTF-8 (an empty batch
      passes).
  """
  names = names or ["text"] + ["text_%d" % i for i in range(1, len(texts))]
  checked = []
  for name, text in zip(names, texts):
    # With a [None] spec TensorFlow would fold tf.rank to 1.
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
  """fn(inputs) computed chunk_size rows at a time, in a sequential
  tf.while_loop (inside the serving graph, static shapes kept): a batch
  needs the memory of one chunk.

  Args:
    fn: function of a nest (like `inputs`) of Tensors [rows, ...] returning
      a nest of Tensors [rows, ...] (row i of the output for row i of the
      input; every row independent of the others, as BERT's are).
    inputs: nest of Tensors with the same leading dimension n.
    chunk_size: int, the most rows fn sees in one call.

  Returns:
    fn's nest of outputs, [n, ...] each (for n == 0, fn runs on one zero
    row, cut back to 0 rows).
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
