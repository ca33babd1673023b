"""A linear-chain CRF over word tags: forward-algorithm loss, Viterbi decoding.

Scores of a tag path y_1..y_n for emissions e (the tag layer's logits):

    score(y) = start[y_1] + sum_t e_t[y_t] + sum_t>1 T[y_t-1, y_t] + end[y_n]

log p(y) = score(y) - log Z, Z summed over all num_labels^n paths by the
forward algorithm (log space, `tf.scan` over time); the decoded path is the
argmax (Viterbi). Steps past a sequence's `lengths` change nothing.

The transitions are between consecutive words, so the CRF runs over the
labelled first pieces only (`compact` gathers them to the front of each
row, `expand` scatters the decoded tags back).

Forbidden transitions (`allowed_transitions`, e.g. O -> I-X) get FORBIDDEN
added to their scores, so such paths are never decoded. Start/end rules
hold only where a window holds the start/end of its sentence
(`sentence_bounds`).

Example (the transitions overrule the per-step argmax [0, 1]; the third
step is past the length):
  >>> e = tf.constant([[[2., 0.], [0., 1.], [5., 5.]]])
  >>> t = tf.constant([[0., -3.], [-3., 0.]])
  >>> z = tf.zeros([1, 2])
  >>> viterbi_decode(e, tf.constant([2]), t, z, z)[0].numpy()
  array([[0, 0, 0]], dtype=int32)
"""

import keras
import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.common import InputError
from bert_tf2.ner import schemes

# Added to forbidden transition scores: exp(-1e4) is 0 in float32, and the
# value stays finite so gradients and sums never see inf - inf.
FORBIDDEN = -10000.0


def allowed_transitions(label_list, scheme):
  """Boolean numpy masks (pairs [L, L], start [L], end [L]) for a scheme.

  Args:
    label_list: list of tags ("O", "B-PER", ...).
    scheme: "BIO", "BIOES" or "IOB1"/None (IOB1 chunks start with I-, so
      nothing is forbidden).

  Example:
    >>> p, s, e = allowed_transitions(["O", "B-PER", "I-PER"], "BIO")
    >>> p.astype(int).tolist(), s.astype(int).tolist()
    ([[1, 1, 0], [1, 1, 1], [1, 1, 1]], [1, 1, 0])
  """
  n = len(label_list)
  pairs = np.ones([n, n], bool)
  start = np.ones([n], bool)
  end = np.ones([n], bool)
  if scheme not in ("BIO", "BIOES"):
    return pairs, start, end
  split = [schemes.split_tag(t) for t in label_list]
  for j, (prefix, kind) in enumerate(split):
    inside = prefix in ("I", "E")
    start[j] = not inside
    if scheme == "BIOES":
      end[j] = prefix not in ("B", "I")
    for i, (prev_prefix, prev_kind) in enumerate(split):
      open_chunk = prev_prefix in ("B", "I")
      same = open_chunk and prev_kind == kind
      if inside:
        pairs[i, j] = same
      elif scheme == "BIOES":
        pairs[i, j] = not open_chunk
  return pairs, start, end


def check_allowed(allowed, num_labels):
  """`allowed` (pairs, start, end masks) as lists of bools, checked: shapes
  [L, L], [L], [L] for L = num_labels, else one InputError line.

    >>> check_allowed([[[1, 0], [1, 1]], [1, 0], [1, 1]], 2)[1]
    [True, False]
  """
  shapes = [(num_labels, num_labels), (num_labels,), (num_labels,)]
  try:
    masks = [np.asarray(a, bool) for a in allowed]
  except (TypeError, ValueError):
    masks = None
  if masks is None or [m.shape for m in masks] != shapes:
    raise InputError("allowed: expected transition masks (pairs, start, "
                     "end) of shapes %s for %d labels (as "
                     "allowed_transitions gives)" % (shapes, num_labels))
  return [m.tolist() for m in masks]


def compact(values, mask):
  """Moves the positions with mask 1 (int or bool [batch_size, seq_length])
  to the front of each row of `values` [batch_size, seq_length, ...];
  returns (values gathered, same shape; lengths: int32 [batch_size])."""
  keep = tf.cast(mask, tf.int32)
  order = tf.argsort(1 - keep, axis=1, stable=True)
  return (tf.gather(values, order, batch_dims=1),
          tf.reduce_sum(keep, axis=1))


def expand(compacted, mask):
  """Inverse of `compact` for int tags: [batch, seq] with 0 where mask 0."""
  keep = tf.cast(mask, tf.int32)
  rank = tf.cumsum(keep, axis=1, exclusive=True)
  return tf.where(keep > 0, tf.gather(compacted, rank, batch_dims=1),
                  tf.zeros_like(compacted))


def sentence_bounds(features):
  """(starts, ends): bool [batch] whether each window holds its sentence's
  first word (its first piece right after [CLS]) / its whole sentence
  (then also padding: input_mask sums below seq_length)."""
  mask = tf.cast(features["label_mask"], tf.int32)
  starts = mask[:, 1] > 0
  if "input_mask" not in features:
    return starts, tf.zeros_like(starts)
  filled = tf.reduce_sum(tf.cast(features["input_mask"], tf.int32), axis=1)
  return starts, starts & (filled < tf.shape(mask)[1])


def _time_major(x):
  perm = [1, 0] + list(range(2, len(x.shape)))
  return tf.transpose(x, perm)


def _as_float32(emissions, transitions, start, end):
  """The scores in float32, start/end broadcast to [batch_size, num_labels]."""
  emissions = tf.cast(emissions, tf.float32)
  shape = tf.shape(emissions)
  start, end = (tf.broadcast_to(tf.cast(x, tf.float32), [shape[0], shape[2]])
                for x in (start, end))
  return emissions, tf.cast(transitions, tf.float32), start, end


def log_likelihood(emissions, tags, lengths, transitions, start, end):
  """log p(tags) per sequence.

  Args:
    emissions: float Tensor [batch_size, seq_length, num_labels].
    tags: int Tensor [batch_size, seq_length] (ignored past the length).
    lengths: int Tensor [batch_size]; 0 gives log p = 0.
    transitions: float Tensor [num_labels, num_labels], T[from, to].
    start, end: float Tensor [num_labels] or [batch_size, num_labels].

  Returns:
    float32 Tensor [batch_size].
  """
  emissions, transitions, start, end = _as_float32(emissions, transitions,
                                                  start, end)
  steps = tf.shape(emissions)[1]
  tags = tf.cast(tags, tf.int32)
  lengths = tf.cast(lengths, tf.int32)
  live = tf.sequence_mask(lengths, steps, dtype=tf.float32)   # [b, T]
  has_any = lengths > 0
  last = tf.maximum(lengths - 1, 0)

  # Score of the given path.
  unary = tf.gather(emissions, tags[..., None], batch_dims=2)[..., 0]
  pair = tf.gather_nd(transitions, tf.stack([tags[:, :-1], tags[:, 1:]], -1))
  gold = (tf.reduce_sum(unary * live, axis=1) +
          tf.reduce_sum(pair * live[:, 1:], axis=1) +
          tf.gather(start, tags[:, 0], batch_dims=1) +
          tf.gather(end, tf.gather(tags, last, batch_dims=1), batch_dims=1))

  # log Z by the forward algorithm; a step past the length keeps alpha.
  def step(alpha, inputs):
    emission, alive = inputs
    nxt = tf.reduce_logsumexp(alpha[:, :, None] + transitions[None], axis=1)
    return tf.where(alive[:, None] > 0, nxt + emission, alpha)

  alpha0 = start + emissions[:, 0]
  alpha = tf.scan(step, (_time_major(emissions[:, 1:]),
                         _time_major(live[:, 1:])), initializer=alpha0)
  final = tf.concat([alpha0[None], alpha], axis=0)[-1]
  log_z = tf.reduce_logsumexp(final + end, axis=1)
  return tf.where(has_any, gold - log_z, tf.zeros_like(gold))


def viterbi_decode(emissions, lengths, transitions, start, end):
  """Best tag path per sequence (args as `log_likelihood`, no tags).

  Returns:
    (tags: int32 [batch_size, seq_length], 0 past the length;
     scores: float32 [batch_size], the best path's score).
  """
  emissions, transitions, start, end = _as_float32(emissions, transitions,
                                                  start, end)
  batch, steps, num_labels = tf.unstack(tf.shape(emissions))
  lengths = tf.cast(lengths, tf.int32)
  live = tf.sequence_mask(lengths, steps)
  identity = tf.broadcast_to(tf.range(num_labels)[None], [batch, num_labels])

  def forward(carry, inputs):
    score, _ = carry
    emission, alive = inputs
    total = score[:, :, None] + transitions[None]            # [b, from, to]
    best = tf.reduce_max(total, axis=1) + emission
    back = tf.argmax(total, axis=1, output_type=tf.int32)
    return (tf.where(alive[:, None], best, score),
            tf.where(alive[:, None], back, identity))

  score0 = start + emissions[:, 0]
  scores, backs = tf.scan(
      forward, (_time_major(emissions[:, 1:]), _time_major(live[:, 1:])),
      initializer=(score0, identity))
  final = tf.concat([score0[None], scores], axis=0)[-1] + end
  best_last = tf.argmax(final, axis=1, output_type=tf.int32)

  def backward(tag, back):
    return tf.gather(back, tag, batch_dims=1)

  # backs[t-1] maps the tag at t to the best tag at t - 1 (t = 1..T-1).
  earlier = tf.scan(backward, backs, initializer=best_last, reverse=True)
  path = tf.concat([_time_major(earlier), best_last[:, None]], axis=1)
  path = tf.where(live, path, tf.zeros_like(path))
  return path, tf.reduce_max(final, axis=1)


@modeling.layers.serializable
class CRF(keras.layers.Layer, modeling.layers.OriginalNamed):
  """Transition, start and end scores with optional forbidden moves.

  Variables (checkpoint names): crf/transitions [L, L] (from, to),
  crf/start_transitions [L], crf/end_transitions [L]; all start at 0.

  Example:
    >>> crf = CRF(3, allowed=allowed_transitions(["O", "B-X", "I-X"], "BIO"))
    >>> e = tf.zeros([1, 4, 3]); m = tf.constant([[0, 1, 1, 0]])
    >>> crf.decode(e, m).shape, crf.log_likelihood(e, m, 0 * m).shape
    (TensorShape([1, 4]), TensorShape([1]))
    >>> sorted(crf.original_variables())
    ['end_transitions', 'start_transitions', 'transitions']
  """

  def __init__(self, num_labels, allowed=None, **kwargs):
    kwargs.setdefault("name", "crf")
    super().__init__(**kwargs)
    self.num_labels = int(num_labels)
    self.original_scope = "crf"
    self.allowed = None if allowed is None else check_allowed(
        allowed, self.num_labels)
    def zeros(name, shape):
      return self.add_weight(name=name, shape=shape, dtype="float32",
                             initializer=keras.initializers.Zeros())
    n = self.num_labels
    self.transitions = zeros("transitions", [n, n])
    self.start_transitions = zeros("start_transitions", [n])
    self.end_transitions = zeros("end_transitions", [n])
    self.built = True

  def original_variables(self):
    return {"transitions": self.transitions,
            "start_transitions": self.start_transitions,
            "end_transitions": self.end_transitions}

  def scores(self, starts=None, ends=None):
    """(transitions [L, L], start [b or 1, L], end [b or 1, L]) with the
    forbidden moves at FORBIDDEN; start/end rules only where starts/ends
    (bool [batch]) are True (everywhere when None)."""
    trans = tf.convert_to_tensor(self.transitions)
    start = tf.convert_to_tensor(self.start_transitions)[None]
    end = tf.convert_to_tensor(self.end_transitions)[None]
    if self.allowed is None:
      return trans, start, end
    pairs, ok_start, ok_end = (tf.constant(a, tf.bool) for a in self.allowed)
    trans = tf.where(pairs, trans, FORBIDDEN)

    def constrain(score, ok, where):
      rule = ~ok[None]
      if where is not None:
        rule = rule & where[:, None]
      return tf.where(rule, FORBIDDEN, score)
    return trans, constrain(start, ok_start, starts), constrain(
        end, ok_end, ends)

  def log_likelihood(self, logits, label_mask, label_ids, starts=None,
                     ends=None):
    """log p(labels) per sequence [batch], over the label_mask positions."""
    emissions, lengths = compact(logits, label_mask)
    tags, _ = compact(label_ids, label_mask)
    return log_likelihood(emissions, tags, lengths,
                          *self.scores(starts, ends))

  def decode(self, logits, label_mask, starts=None, ends=None):
    """Viterbi tags int32 [batch, seq_length] (0 where label_mask is 0)."""
    emissions, lengths = compact(logits, label_mask)
    path, _ = viterbi_decode(emissions, lengths, *self.scores(starts, ends))
    return expand(path, label_mask)

  def call(self, logits, label_mask):
    return self.decode(logits, label_mask)

  def get_config(self):
    config = super().get_config()
    config.update(num_labels=self.num_labels, allowed=self.allowed)
    return config
