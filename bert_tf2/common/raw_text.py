"""In-graph helpers of raw-string SavedModel signatures (serving contract).

The contract (docs/reliability.md): a raw-string signature answers an
empty batch with an empty result, refuses input that is not a 1-D batch of
strings (signatures take TEXT_SPEC and call check_utf8), refuses
invalid UTF-8 with an error naming the input, and runs a big batch in
chunks so that memory stays bounded.

Example:
  >>> import tensorflow as tf

# Any rank, so that check_utf8 can refuse a 2-D input with a clear message
# (a loaded signature does not check shapes against a [None] spec, and the
# rank of a [None] input is constant-folded to 1).
TEXT_SPEC = tf.TensorSpec(None, tf.string)
  >>> check_utf8(tf.constant(["ok", "é"]), "text").numpy().tolist()
  [b'ok', b'\\xc3\\xa9']
  >>> double = lambda x: (2 * x,)
  >>> map_in_chunks(double, [tf.range(5)], 2, [tf.TensorSpec([], tf.int32)]
  ...               )[0].numpy().tolist()
  [0, 2, 4, 6, 8]
"""

import tensorflow as tf

# Any rank, so that check_utf8 can refuse a 2-D input with a clear message
# (a loaded signature does not check shapes against a [None] spec, and the
# rank of a [None] input is constant-folded to 1).
TEXT_SPEC = tf.TensorSpec(None, tf.string)


def check_utf8(texts, name):
  """`texts` (tf.string [batch]) after asserting a 1-D batch of UTF-8.

  Raises (at run time):
    tf.errors.InvalidArgumentError: "<name>: expected a 1-D batch of
      strings" or "<name>: invalid UTF-8 in items [i ...]".
  """
  shape_check = tf.debugging.Assert(
      tf.equal(tf.rank(texts), 1),
      [tf.constant(name + ": expected a 1-D batch of strings, got shape"),
       tf.shape(texts)])
  with tf.control_dependencies([shape_check]):
    texts = tf.reshape(tf.identity(texts), [-1])
  valid = tf.equal(tf.strings.unicode_transcode(
      texts, "UTF-8", "UTF-8", errors="replace", replacement_char=0xFFFD,
      replace_control_characters=False), texts)
  # A text that already holds U+FFFD transcodes to itself: still valid.
  bad_items = tf.reshape(tf.where(tf.logical_not(valid)), [-1])
  check = tf.debugging.Assert(
      tf.reduce_all(valid),
      [tf.constant(name + ": invalid UTF-8 in items"), bad_items])
  with tf.control_dependencies([check]):
    return tf.identity(texts)


def map_in_chunks(fn, tensors, chunk_size, output_signature):
  """Concatenated fn(*chunk) over chunks of `chunk_size` rows.

  Args:
    fn: maps tensors of leading dimension chunk_size to a tuple of tensors
      of leading dimension chunk_size.
    tensors: list of numeric tensors with the same leading dimension n
      (n may be 0).
    chunk_size: int.
    output_signature: list of tf.TensorSpec of ONE row of each output.

  Returns:
    list of tensors with leading dimension n.
  """
  n = tf.shape(tensors[0])[0]
  num_chunks = (n + chunk_size - 1) // chunk_size
  extra = num_chunks * chunk_size - n

  def pad_and_split(t):
    paddings = tf.concat([[[0, extra]],
                          tf.zeros([tf.rank(t) - 1, 2], tf.int32)], axis=0)
    t = tf.pad(t, paddings)
    return tf.reshape(t, tf.concat([[num_chunks, chunk_size],
                                    tf.shape(t)[1:]], axis=0))

  chunks = [pad_and_split(t) for t in tensors]
  signature = [tf.TensorSpec([chunk_size] + list(s.shape), s.dtype)
               for s in output_signature]
  outputs = tf.map_fn(lambda xs: tuple(fn(*xs)), tuple(chunks),
                      fn_output_signature=tuple(signature))
  results = []
  for out in outputs:
    flat = tf.reshape(out, tf.concat([[-1], tf.shape(out)[2:]], axis=0))
    results.append(flat[:n])
  return results
