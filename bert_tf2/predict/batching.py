"""Batching for the predictors: `features_function` (a text model's
preprocessor over the texts), `run_batches` (token-id batches of similar
lengths); raw-text examples in order of length:
`bert_tf2.common.example_order`; input checks:
`bert_tf2.common.text_inputs`; SavedModels are written by
`bert_tf2.common.serving`.
"""


import numpy as np
import tensorflow as tf

from bert_tf2.common import padding

# The model inputs `run_batches` takes, in order, from a preprocessor's
# features.
FEATURES = ("input_ids", "input_mask", "segment_ids")


def run_batches(fn, arrays, batch_size, trim_padding=False,
                sequence_outputs=(), sort_by_length=None):
  """Applies fn(*batch) to int32 arrays in batches; concatenates outputs.

  fn returns a Tensor or a tuple of Tensors (or numpy arrays); so does this
  (numpy), row i for input row i.

  Args:
    fn: the model function.
    arrays: [input_ids, input_mask, segment_ids], each [n, max_seq_length].
    batch_size: int.
    trim_padding: cut each batch to its longest sequence rounded up to a
      multiple of 8 (`common.padding`, fine buckets): the same outputs to
      float32 round-off, less compute on short texts.
    sequence_outputs: indexes of outputs of shape [batch, seq, ...], padded
      back with zeros to max_seq_length after trimming.
    sort_by_length: batch the rows in order of length (a stable sort; the
      outputs come back in input order), so that each trimmed batch holds
      texts of similar length. Default: the value of trim_padding. A row's
      output does not depend on the other rows of its batch (BERT has no
      batch statistics), so only float32 round-off changes.

  Texts of 20, 2 and 5 word pieces at max_seq_length 24, batches of 2: the
  two short ones share a batch run at length 8 (output: 100 * length +
  the batch's width).

  >>> mask = (np.arange(24) < np.array([[20], [2], [5]])).astype(np.int32)
  >>> fn = lambda i, m, s: tf.reduce_sum(m, 1) * 100 + tf.shape(m)[1]
  >>> run_batches(fn, [mask] * 3, batch_size=2, trim_padding=True).tolist()
  [2024, 208, 508]
  >>> run_batches(fn, [mask] * 3, batch_size=2, trim_padding=True,
  ...             sort_by_length=False).tolist()
  [2024, 224, 508]
  """
  n = len(arrays[0])
  if not n:
    raise ValueError("run_batches: no rows (callers return early)")
  arrays = [np.asarray(a, np.int32) for a in arrays]
  max_len = arrays[0].shape[1]
  if sort_by_length is None:
    sort_by_length = trim_padding
  order = None
  if sort_by_length:
    order = np.argsort(arrays[1].sum(axis=1), kind="stable")
    arrays = [a[order] for a in arrays]
  buckets = padding.bucket_lengths(max_len, fine=True)
  outputs = []
  for begin in range(0, n, batch_size):
    batch = [a[begin:begin + batch_size] for a in arrays]
    length = max_len
    if trim_padding:
      used = np.flatnonzero(batch[1].any(axis=0))
      length = padding.round_up_length(used[-1] + 1 if used.size else 1,
                                       buckets)
      batch = [b[:, :length] for b in batch]
    result = fn(*[tf.constant(b) for b in batch])
    single = not isinstance(result, (list, tuple))
    result = [np.asarray(r) for r in ([result] if single else result)]
    for i in sequence_outputs:
      if length < max_len:
        pad = [(0, 0)] * result[i].ndim
        pad[1] = (0, max_len - length)
        result[i] = np.pad(result[i], pad)
    outputs.append(result)
  merged = [np.concatenate([o[i] for o in outputs])
            for i in range(len(outputs[0]))]
  if order is not None:
    inverse = np.empty_like(order)
    inverse[order] = np.arange(n)
    merged = [m[inverse] for m in merged]
  return merged[0] if single else tuple(merged)


def features_function(preprocessor):
  """A text model's preprocessor as fn(pairs) -> its features, NumPy.

  pairs: [(text_a, text_b or None), ...] (`text_inputs.check_texts`),
  at least one. The preprocessor (a Keras layer of (texts_a, texts_b), a
  text_b "" packing a single text) runs as one traced call over them all;
  its int32 feature dict comes back as NumPy arrays, ready for
  `run_batches`.

  >>> double = lambda x: {"a": tf.strings.length(x[0]) * 2}
  >>> features_function(double)([("ab", None), ("c", "d")])["a"].tolist()
  [4, 2]
  """
  spec = tf.TensorSpec([None], tf.string)
  traced = tf.function(lambda a, b: preprocessor((a, b)),
                       input_signature=[spec, spec], autograph=False)

  def features(pairs):
    out = traced(tf.constant([a for a, _ in pairs], tf.string),
                 tf.constant(["" if b is None else b for _, b in pairs],
                             tf.string))
    return {k: v.numpy() for k, v in out.items()}
  return features
