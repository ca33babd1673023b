"""The classic BERT questions, answered by measurement (docs/questions.md).

One command per question (python -m bert_tf2.analysis.questions NAME ...),
each printing one Markdown table:

  tied     --init_checkpoint=C [--bert_config_file=F]
           is the MLM output layer the word-embedding table? (the checkpoint's
           variables; with a config, our model's variables and gradients)
  scale    --bert_config_file --init_checkpoint --vocab_file [--sentences=N]
           attention softmax with and without the 1/sqrt(d) scale on BBC text:
           entropy and the share of saturated rows (max prob > 0.99)
  decode   --init_checkpoint=C [--samples=N --max_positions=P]
           token and position recovered from word + position + segment sums
  limits   --bert_config_file=F
           what our model does past max_position_embeddings and with a
           segment id >= type_vocab_size
  flops    [--hidden=D --intermediate=F]
           attention vs feed-forward FLOPs per layer against sequence length
  pooling  --bert_config_file --init_checkpoint --vocab_file [--per_category=N]
           [CLS] vs mean pooling for topic similarity on BBC articles
  long_text --bert_config_file --init_checkpoint --vocab_file
           [--max_articles=N --max_seq_length=S --doc_stride=K]
           BBC topic by a logistic regression on frozen article vectors:
           the first window (truncation) vs the mean of sliding windows
  self_attention --bert_config_file --init_checkpoint --vocab_file
           [--sentences=N] how much weight each token puts on itself, with
           the trained Q/K and with Q = K = V = the layer's input
  nonlinearity --bert_config_file --init_checkpoint --vocab_file
           [--max_articles=N] GELU, softmax and LayerNorm replaced one at a
           time: the change of the mean-pooled vectors and a topic probe
  layers   --bert_config_file --init_checkpoint --vocab_file [--sentences=N
           --max_seq_length=S --max_pairs=M --seed=K --output_plot=PNG]
           position through the layers on BBC sentences: linear probes of
           each token's index and of the order of two tokens (held-out
           sentences), and how much each layer's output changes when the
           words are shuffled
  masking  [--rates=0.1,0.15,0.25,0.4 --seeds=N --steps=N ...]
           the masking rate: tiny BERTs pretrained by masked LM on a
           synthetic language whose topic only bigrams reveal, a topic
           probe on their frozen vectors, per rate and seed

The pure functions below take numpy arrays (shapes in the docstrings).
"""

import argparse
import contextlib
import os

import numpy as np

from tokenization.errors import InputError

WORD = "bert/embeddings/word_embeddings"
POSITION = "bert/embeddings/position_embeddings"
SEGMENT = "bert/embeddings/token_type_embeddings"


# --- tied -------------------------------------------------------------------

def output_matrices(shapes, vocab_size, hidden_size):
  """Names of [vocab, hidden] or [hidden, vocab] variables (output layers).

  >>> output_matrices({"a/w": [10, 4], "b/w": [4, 10], "c": [10]}, 10, 4)
  ['a/w', 'b/w']
  """
  return sorted(n for n, s in shapes.items()
                if list(s) in ([vocab_size, hidden_size],
                               [hidden_size, vocab_size]))


OPTIMIZER_SLOTS = ("/adam_m", "/adam_v")


def model_variables(shapes):
  """The shapes without the optimizer's slot variables (the original's
  `NAME/adam_m`, `NAME/adam_v`, saved next to each weight).

  >>> model_variables({"w": [2], "w/adam_m": [2], "w/adam_v": [2]})
  {'w': [2]}
  """
  return {n: s for n, s in shapes.items() if not n.endswith(OPTIMIZER_SLOTS)}


def tied_report(shapes):
  """The MLM head's variables and the [vocab, hidden] matrices of a checkpoint.

  Args:
    shapes: {variable name: shape} of a checkpoint (optimizer slots are
      left out).

  Returns:
    dict: word_embeddings (shape), mlm_head ({name: shape} under
    cls/predictions), output_matrices (names), tied (bool: the head has no
    matrix of its own and the only [vocab, hidden] matrix is the word table;
    False without a head: `tied_answer` words that case).
  """
  shapes = model_variables(shapes)
  if WORD not in shapes:
    raise InputError("checkpoint has no %s" % WORD)
  vocab, hidden = shapes[WORD]
  head = {n: list(s) for n, s in shapes.items()
          if n.startswith("cls/predictions/")}
  matrices = output_matrices(shapes, vocab, hidden)
  return {"word_embeddings": list(shapes[WORD]), "mlm_head": head,
          "output_matrices": matrices,
          "tied": bool(head) and matrices == [WORD]}


def tied_answer(report):
  """The answer's words: True / False, or that there is no head to tie.

  >>> tied_answer({"mlm_head": {}, "tied": False})
  'no MLM head saved'
  >>> tied_answer({"mlm_head": {"cls/predictions/output_bias": [5]}, "tied": True})
  'True'
  """
  return str(report["tied"]) if report["mlm_head"] else "no MLM head saved"


def model_tie_check(config):
  """Builds our PretrainingModel and checks the tie on its variables.

  Returns:
    dict: vocab_matrices (names of the model's [vocab, hidden] variables),
    head_variables (names of the MLM head's), logits_grad_rows (how many
    word-table rows get a gradient from the MLM logits of one input whose
    tokens are all id 0: every row when tied, only row 0 otherwise).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from bert_tf2.pretraining import model as pretraining_model  # pylint: disable=g-import-not-at-top
  model = pretraining_model.PretrainingModel(config)
  ids = tf.zeros([1, 4], tf.int32)
  features = {"input_ids": ids, "input_mask": tf.ones_like(ids),
              "segment_ids": tf.zeros_like(ids),
              "masked_lm_positions": tf.constant([[1, 2]]),
              "masked_lm_ids": tf.constant([[0, 0]]),
              "masked_lm_weights": tf.ones([1, 2]),
              "next_sentence_labels": tf.zeros([1, 1], tf.int32)}
  model(features)
  table = model.bert.embeddings.word_embeddings
  with tf.GradientTape() as tape:
    out = model(features)
    logits = out["masked_lm_logits"] if isinstance(out, dict) else out[0]
    loss = tf.reduce_sum(tf.nn.log_softmax(logits)[..., 1:])
  grad = tf.convert_to_tensor(tape.gradient(loss, table))
  rows = int(np.sum(np.any(np.asarray(grad) != 0, axis=1)))
  v, h = config.vocab_size, config.hidden_size
  return {"vocab_matrices": sorted(
      w.path for w in model.weights if list(w.shape) in ([v, h], [h, v])),
          "head_variables": sorted(w.path for w in model.masked_lm.weights),
          "logits_grad_rows": rows, "vocab_size": v}


# --- scale ------------------------------------------------------------------

def attention_logits(x, q_kernel, q_bias, k_kernel, k_bias, num_heads):
  """Unscaled q.k logits of one layer.

  Args:
    x: float [S, H], the layer's input.
    q_kernel, k_kernel: float [H, H]; q_bias, k_bias: float [H].
    num_heads: int N (H divisible by N).

  Returns:
    float [N, S, S]: q_i . k_j per head (no 1/sqrt(d) scale).
  """
  s, h = x.shape
  d = h // num_heads
  q = (x @ q_kernel + q_bias).reshape(s, num_heads, d).transpose(1, 0, 2)
  k = (x @ k_kernel + k_bias).reshape(s, num_heads, d).transpose(1, 0, 2)
  return q @ k.transpose(0, 2, 1)


def softmax_stats(logits, saturated=0.99):
  """(mean entropy in nats, share of rows whose max prob > saturated).

  Args:
    logits: float [..., S] (rows are the last axis).

  >>> e, sat = softmax_stats(np.array([[0.0, 0.0], [100.0, 0.0]]))
  >>> round(float(e), 3), float(sat)
  (0.347, 0.5)
  """
  z = logits - logits.max(axis=-1, keepdims=True)
  p = np.exp(z)
  p /= p.sum(axis=-1, keepdims=True)
  ent = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0),
                axis=-1)
  return float(ent.mean()), float(np.mean(p.max(axis=-1) > saturated))


def scale_rows(layer_logits, head_size):
  """Table rows: per layer, entropy and saturation with and without scale.

  Args:
    layer_logits: list over layers of lists of float [N, S, S] (one per
      sentence), unscaled.
    head_size: int d.

  Returns:
    list of (layer, entropy scaled, saturated scaled, entropy unscaled,
    saturated unscaled, uniform entropy), floats averaged over sentences.
  """
  rows = []
  for layer, per_sentence in enumerate(layer_logits):
    scaled = [softmax_stats(l / np.sqrt(head_size)) for l in per_sentence]
    raw = [softmax_stats(l) for l in per_sentence]
    uniform = np.mean([np.log(l.shape[-1]) for l in per_sentence])
    rows.append((layer,) + tuple(np.mean(scaled, axis=0))
                + tuple(np.mean(raw, axis=0)) + (float(uniform),))
  return rows


# --- decode -----------------------------------------------------------------

def decode_sums(word, position, segment, tokens, positions, segments):
  """Recovers (token, position, segment) from word + position + segment.

  Two nearest-neighbour steps: the token nearest to the sum minus the mean
  position and segment rows, then the (position, segment) pair nearest to
  the sum minus that token's row.

  Args:
    word: float [V, H]; position: float [P, H]; segment: float [T, H].
    tokens, positions, segments: int [N] each, the true ids.

  Returns:
    (token accuracy, position accuracy, segment accuracy, all three), floats.

  >>> rows = np.eye(16)
  >>> w, p, s = rows[:10], rows[10:14], rows[14:]
  >>> decode_sums(w, p, s, np.arange(10), np.arange(10) % 4, np.arange(10) % 2)
  (1.0, 1.0, 1.0, 1.0)
  """
  word, position, segment = (np.asarray(a, np.float64)
                             for a in (word, position, segment))
  sums = word[tokens] + position[positions] + segment[segments]
  base = sums - position.mean(0) - segment.mean(0)
  t_hat = np.argmin(_sq_dist(base, word), axis=1)
  rest = sums - word[t_hat]
  pairs = (position[:, None, :] + segment[None, :, :]).reshape(-1,
                                                               word.shape[1])
  best = np.argmin(_sq_dist(rest, pairs), axis=1)
  p_hat, s_hat = best // segment.shape[0], best % segment.shape[0]
  ok_t, ok_p, ok_s = t_hat == tokens, p_hat == positions, s_hat == segments
  return (float(ok_t.mean()), float(ok_p.mean()), float(ok_s.mean()),
          float((ok_t & ok_p & ok_s).mean()))


def _sq_dist(a, b):
  """Squared distances [N, M] between rows of a [N, H] and b [M, H]."""
  return (np.sum(a * a, 1)[:, None] - 2 * a @ b.T + np.sum(b * b, 1)[None])


# --- flops ------------------------------------------------------------------

def layer_flops(n, d, d_ff):
  """(attention, dense) multiply-add FLOPs x2 of one encoder layer.

  attention = 4 n^2 d (q.k and probs.v); dense = 8 n d^2 (q, k, v, output
  projections) + 4 n d d_ff (the two feed-forward matrices).

  >>> layer_flops(128, 384, 1536)
  (25165824, 452984832)
  """
  return 4 * n * n * d, 8 * n * d * d + 4 * n * d * d_ff


def crossover_length(d, d_ff):
  """The n where 4 n^2 d = 8 n d^2 + 4 n d d_ff, i.e. n = 2 d + d_ff.

  >>> crossover_length(384, 1536), crossover_length(768, 3072)
  (2304, 4608)
  """
  return 2 * d + d_ff


# --- limits -----------------------------------------------------------------

def limit_cases(model, config):
  """What the model does past its limits.

  Returns:
    list of (case, outcome) strings: a sequence one position too long, and
    a segment id equal to type_vocab_size (compared with the same input
    with the segment embedding left out).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  cases = []
  n = config.max_position_embeddings + 1
  try:
    model({"input_ids": np.ones([1, n], np.int32)})
    cases.append(("%d positions" % n, "ran (no error)"))
  except (InputError, tf.errors.InvalidArgumentError, ValueError) as e:
    cases.append(("%d positions" % n, error_line(e)))
  ids = np.array([[1, 5, 6, 2]], np.int32)
  third = np.full_like(ids, config.type_vocab_size)
  try:
    out = model.embeddings(ids, third)[0]
  except (InputError, tf.errors.InvalidArgumentError, ValueError) as e:
    cases.append(("segment id %d" % config.type_vocab_size, error_line(e)))
    return cases
  emb = model.embeddings
  word = tf.gather(emb.word_embeddings, ids)
  pos = tf.convert_to_tensor(emb.position_embeddings)[:ids.shape[1]][None]
  no_segment = emb.layer_norm(word + pos)
  diff = float(np.max(np.abs(np.asarray(out) - np.asarray(no_segment))))
  cases.append(("segment id %d" % config.type_vocab_size,
                "ran (no error): the embedding output differs from the same "
                "input with no segment embedding at all by at most %.2g" % diff))
  return cases


def error_line(error):
  """"Type: message", the message without Keras's call wrapper.

  >>> error_line(ValueError("Exception encountered when calling X.call().\\n"
  ...                       "\\n\\x1b[1mbad length\\x1b[0m\\n\\nArguments: ..."))
  'ValueError: bad length'
  """
  lines = [l.replace("\x1b[1m", "").replace("\x1b[0m", "").strip()
           for l in str(error).splitlines()]
  lines = [l for l in lines if l and not l.startswith("Exception encountered")]
  return "%s: %s" % (type(error).__name__, lines[0] if lines else "")


# --- pooling ----------------------------------------------------------------

def bbc_by_category(per_category):
  """[(topic, whitespace-normalised article)], per_category per topic."""
  from bert_tf2.analysis import positions_why  # pylint: disable=g-import-not-at-top
  out, seen = [], {}
  for topic, path in positions_why.bbc_files():
    seen[topic] = seen.get(topic, 0) + 1
    if seen[topic] <= per_category:
      out.append((topic, " ".join(positions_why.read_text(path).split())))
  return out


def nearest_neighbour_accuracy(vectors, labels):
  """Leave-one-out 1-NN accuracy of cosine similarity.

  >>> nearest_neighbour_accuracy(np.array([[1, 0], [1, .1], [0, 1], [.1, 1]]), [0, 0, 1, 1])
  1.0
  """
  v = np.asarray(vectors, np.float64)
  v = v / np.linalg.norm(v, axis=1, keepdims=True)
  sim = v @ v.T
  np.fill_diagonal(sim, -np.inf)
  labels = np.asarray(labels)
  return float(np.mean(labels[np.argmax(sim, axis=1)] == labels))


def pair_auc(vectors, labels):
  """AUC of cosine similarity for same-label vs different-label pairs."""
  v = np.asarray(vectors, np.float64)
  v = v / np.linalg.norm(v, axis=1, keepdims=True)
  sim = v @ v.T
  labels = np.asarray(labels)
  iu = np.triu_indices(len(labels), 1)
  s, same = sim[iu], (labels[:, None] == labels[None])[iu]
  ranks = np.argsort(np.argsort(s)) + 1.0
  pos = same.sum()
  neg = same.size - pos
  return float((ranks[same].sum() - pos * (pos + 1) / 2) / (pos * neg))


# --- long_text ----------------------------------------------------------------

def bbc_labelled(max_articles):
  """[(split, topic, whitespace-normalised article)] of BBC News.

  Args:
    max_articles: int, how many of the 2,225 articles, spread evenly over
      the sorted files (so over the topics); 0 or more than there are
      means all. The split is `positions_why.bbc_split` (about 70/15/15).
  """
  from bert_tf2.analysis import positions_why  # pylint: disable=g-import-not-at-top
  files = positions_why.bbc_files()
  n = len(files)
  if 0 < max_articles < n:
    files = [files[i * n // max_articles] for i in range(max_articles)]
  return [(positions_why.bbc_split(path), topic,
           " ".join(positions_why.read_text(path).split()))
          for topic, path in files]


def article_windows(ids, max_seq_length, doc_stride, cls_id, sep_id):
  """Each article's sliding windows, packed as run_classifier.py's
  `--long_text=sliding_window` packs them (`packing.pair_windows` with no
  second text, then `packing.pack_inputs`); the first window of an article
  is its truncation to max_seq_length - 2 word pieces.

  Args:
    ids: list over A articles of lists of int word-piece ids.
    max_seq_length, doc_stride: ints.
    cls_id, sep_id: ints.

  Returns:
    (features, example): dict of int32 numpy [W, max_seq_length]
    ("input_ids", "input_mask", "segment_ids") and int numpy [W], the
    article of each window (articles in order, an article's windows in
    order).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from tokenization import packing  # pylint: disable=g-import-not-at-top
  lengths = [len(i) for i in ids]
  ids_a = tf.RaggedTensor.from_row_lengths(
      tf.constant([t for i in ids for t in i], tf.int64, [sum(lengths)]),
      tf.constant(lengths, tf.int64, [len(ids)]))
  no_b = tf.RaggedTensor.from_row_lengths(tf.zeros([0], tf.int64),
                                          tf.zeros([len(ids)], tf.int64))
  window_a, _, example = packing.pair_windows(ids_a, no_b, max_seq_length,
                                              doc_stride)
  features = packing.pack_inputs(window_a, None, max_seq_length, cls_id,
                                 sep_id)
  return {k: v.numpy() for k, v in features.items()}, example.numpy()


def window_vectors(model, features, batch_size=64):
  """(mean-pooled, [CLS]) final-layer vectors of each window.

  Args:
    model: a BertModel (or its `graph_forward`).
    features: dict of int [W, S] "input_ids", "input_mask", "segment_ids".

  Returns:
    (mean, cls): float32 numpy [W, H] each; mean is over the window's
    real tokens ([CLS] and [SEP] included, as sentence-transformers pools).
  """
  from bert_tf2.embedding import pooling  # pylint: disable=g-import-not-at-top
  mean, cls = [], []
  for i in range(0, len(features["input_ids"]), batch_size):
    batch = {"input_ids": features["input_ids"][i:i + batch_size],
             "input_mask": features["input_mask"][i:i + batch_size],
             "token_type_ids": features["segment_ids"][i:i + batch_size]}
    seq = model(batch)["sequence_output"]
    mean.append(np.asarray(pooling.pool(seq, batch["input_mask"], "mean")))
    cls.append(np.asarray(pooling.pool(seq, batch["input_mask"], "cls")))
  return np.concatenate(mean), np.concatenate(cls)


def article_vectors(vectors, example, num_articles):
  """(first window's vector, mean of the windows' vectors) per article.

  Args:
    vectors: float [W, H], one per window.
    example: int [W], the article of each window, sorted, every article in
      0..num_articles-1 present.

  Returns:
    (first, mean): float [A, H] each.

  >>> first, mean = article_vectors(np.array([[1.], [3.], [5.]]), [0, 0, 1], 2)
  >>> first.tolist(), mean.tolist()
  ([[1.0], [5.0]], [[2.0], [5.0]])
  """
  vectors = np.asarray(vectors, np.float64)
  example = np.asarray(example)
  counts = np.bincount(example, minlength=num_articles)
  if np.any(counts == 0) or np.any(np.diff(example) < 0):
    raise ValueError("every article needs a window, in order")
  sums = np.zeros((num_articles, vectors.shape[1]))
  np.add.at(sums, example, vectors)
  first = vectors[np.searchsorted(example, np.arange(num_articles))]
  return first, sums / counts[:, None]


def probe_predictions(train_x, train_y, test_x):
  """A logistic regression (standardised features) fit on the train
  vectors; its labels for the test vectors (numpy [N_test])."""
  from sklearn.linear_model import LogisticRegression  # pylint: disable=g-import-not-at-top
  from sklearn.pipeline import make_pipeline  # pylint: disable=g-import-not-at-top
  from sklearn.preprocessing import StandardScaler  # pylint: disable=g-import-not-at-top
  probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
  return probe.fit(train_x, train_y).predict(test_x)


WINDOW_BUCKETS = ((1, 1), (2, 3), (4, 6), (7, 10**9))


def window_bucket(count):
  """The WINDOW_BUCKETS label of an article with `count` windows.

  >>> [window_bucket(c) for c in (1, 3, 4, 12)]
  ['1', '2-3', '4-6', '7+']
  """
  for low, high in WINDOW_BUCKETS:
    if low <= count <= high:
      return str(low) if low == high else (
          "%d+" % low if high == 10**9 else "%d-%d" % (low, high))
  raise ValueError("count must be >= 1, got %r" % count)


# --- nonlinearity -----------------------------------------------------------

NONLINEARITIES = ("as trained", "GELU -> identity", "softmax -> uniform",
                  "softmax -> shifted linear", "LayerNorm -> fixed scale")


def uniform_attention(scores):
  """Softmax replaced by a uniform row over the keys not masked out.

  Args:
    scores: float Tensor [..., S] (masked keys carry -10000 added).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  keep = tf.cast(scores > -5000.0, scores.dtype)
  return keep / tf.reduce_sum(keep, axis=-1, keepdims=True)


def shifted_linear_attention(scores):
  """Softmax replaced by a linear normalisation: (s - min) / sum(s - min)
  over the keys not masked out (no exponential)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  keep = scores > -5000.0
  low = tf.reduce_min(tf.where(keep, scores, tf.reduce_max(scores, -1,
                                                           keepdims=True)),
                      axis=-1, keepdims=True)
  # The row's smallest key keeps a tiny weight: no row sums to 0.
  shifted = tf.where(keep, scores - low + 1e-6, 0.0)
  return shifted / tf.reduce_sum(shifted, axis=-1, keepdims=True)


def fixed_scale_layer_norm(x, gamma, beta, scale):
  """LayerNorm with the per-token standard deviation replaced by a constant:
  gamma * (x - mean(x)) / scale + beta, affine in x.

  Args:
    x: float [..., width] (numpy or Tensor); gamma, beta: float [width];
    scale: float.

  >>> np.asarray(fixed_scale_layer_norm(np.array([[1.0, 3.0]]), np.ones(2),
  ...                                   np.zeros(2), 2.0))
  array([[-0.5,  0.5]])
  """
  import keras  # pylint: disable=g-import-not-at-top
  centred = x - keras.ops.mean(x, axis=-1, keepdims=True)
  return keras.ops.cast(gamma, centred.dtype) * centred / scale + (
      keras.ops.cast(beta, centred.dtype))


def nonlinearity_patch(kind, scales=None, record=None):
  """A context in which BERT's forward pass has one non-linearity replaced.

  Args:
    kind: one of NONLINEARITIES past the GELU one (GELU -> identity is a
      config change: `hidden_act` "linear"); "as trained" patches nothing.
    scales: {id of a LayerNorm's gamma variable: float}, the fixed scale
      of each LayerNorm (for "LayerNorm -> fixed scale").
    record: optional {id of gamma: [standard deviations]}: with kind "as
      trained", every LayerNorm's per-token standard deviations are
      appended (the calibration pass for the fixed scales).

  The patches replace tf.nn.softmax (used by modeling/attention.py) and
  modeling.ops.layer_norm (used by modeling.LayerNorm) for the duration of
  the context only.
  """
  from unittest import mock  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from modeling import ops  # pylint: disable=g-import-not-at-top
  original = ops.layer_norm

  def recording(x, gamma=None, beta=None, epsilon=1e-12):
    _, variance = tf.nn.moments(tf.cast(x, tf.float32), axes=[-1])
    record.setdefault(id(gamma), []).extend(
        np.sqrt(np.asarray(variance) + epsilon).ravel().tolist())
    return original(x, gamma, beta, epsilon)

  def fixed(x, gamma=None, beta=None, epsilon=1e-12):
    del epsilon
    x = tf.cast(x, tf.float32)
    return fixed_scale_layer_norm(x, gamma, beta, scales[id(gamma)])

  if kind == "softmax -> uniform":
    return mock.patch.object(tf.nn, "softmax", uniform_attention)
  if kind == "softmax -> shifted linear":
    return mock.patch.object(tf.nn, "softmax", shifted_linear_attention)
  if kind == "LayerNorm -> fixed scale":
    return mock.patch.object(ops, "layer_norm", fixed)
  if kind == "as trained" and record is not None:
    return mock.patch.object(ops, "layer_norm", recording)
  if kind in ("as trained", "GELU -> identity"):
    return contextlib.nullcontext()
  raise ValueError("unknown kind %r" % kind)


# --- self_attention ---------------------------------------------------------

def softmax(logits):
  """Softmax over the last axis (numpy, max-subtracted)."""
  z = np.exp(logits - logits.max(axis=-1, keepdims=True))
  return z / z.sum(axis=-1, keepdims=True)


def projection_free_attention(x, num_heads):
  """Attention with Q = K = V = the input: no projection matrices.

  Each head takes its slice of the hidden vector as query and key
  (`attention_logits` with identity kernels and zero biases), scaled by
  1/sqrt(d) as in BERT.

  Args:
    x: float [S, H], the layer's input; num_heads: int N.

  Returns:
    float [N, S, S], rows summing to 1.

  >>> p = projection_free_attention(np.eye(4) * 10.0, 2)
  >>> np.round(np.diagonal(p, axis1=1, axis2=2), 2).tolist()[0]
  [1.0, 1.0, 0.25, 0.25]
  """
  h = x.shape[1]
  eye, zero = np.eye(h), np.zeros(h)
  logits = attention_logits(x, eye, zero, eye, zero, num_heads)
  return softmax(logits / np.sqrt(h // num_heads))


def self_weight(probs):
  """(mean weight a token puts on itself, share of rows where it is the max).

  Args:
    probs: float [..., S, S] attention (rows = queries).

  >>> self_weight(np.array([[0.7, 0.3], [0.6, 0.4]]))
  (0.55, 0.5)
  """
  diag = np.diagonal(probs, axis1=-2, axis2=-1)
  top = np.argmax(probs, axis=-1) == np.arange(probs.shape[-1])
  return float(diag.mean()), float(top.mean())


# --- layers -----------------------------------------------------------------

def pack_words(pieces, order, cls_id, sep_id):
  """[CLS] + the words' pieces in `order` + [SEP].

  Args:
    pieces: list over W words of lists of int piece ids.
    order: int [W], the words' order (a permutation of 0..W-1).
    cls_id, sep_id: ints.

  Returns:
    (ids, word): int numpy [n] each: the input ids, and for each token the
    index of its word in `pieces` (-1 for [CLS] and [SEP]).

  >>> ids, word = pack_words([[7], [8, 9]], [1, 0], 1, 2)
  >>> ids.tolist(), word.tolist()
  ([1, 8, 9, 7, 2], [-1, 1, 1, 0, -1])
  """
  ids, word = [cls_id], [-1]
  for w in order:
    ids += list(pieces[w])
    word += [w] * len(pieces[w])
  return np.array(ids + [sep_id]), np.array(word + [-1])


def shuffled_token_index(word, shuffled_word):
  """For each token of the original order, its index in the shuffled one.

  Args:
    word, shuffled_word: int [n] from `pack_words` (the same words in two
      orders).

  Returns:
    int numpy [n] ([CLS] and [SEP] keep their places).

  >>> shuffled_token_index(np.array([-1, 0, 1, 1, -1]),
  ...                      np.array([-1, 1, 1, 0, -1])).tolist()
  [0, 3, 1, 2, 4]
  """
  word, shuffled_word = np.asarray(word), np.asarray(shuffled_word)
  out = np.arange(word.size)
  for w in np.unique(word[word >= 0]):
    out[word == w] = np.nonzero(shuffled_word == w)[0]
  return out


def order_pairs(n, max_pairs, rng):
  """Token pairs (a, b) of one sentence of n tokens, [CLS] / [SEP] left out.

  Args:
    n: int >= 4.
    max_pairs: int, at most this many random pairs.
    rng: numpy RandomState (which pairs, and which way round).

  Returns:
    (pairs, neighbours): int numpy [m, 2] each: random pairs and every
    adjacent pair, each flipped with probability 1/2 (so "b after a" is
    true about half the time).
  """
  a, b = np.triu_indices(n - 2, 1)
  keep = rng.permutation(a.size)[:max_pairs]
  pairs = np.stack([a[keep], b[keep]], axis=1) + 1
  near = np.stack([np.arange(1, n - 2), np.arange(2, n - 1)], axis=1)
  for p in (pairs, near):
    flip = rng.rand(len(p)) < 0.5
    p[flip] = p[flip][:, ::-1]
  return pairs, near


def position_probe(train_x, train_pos, test_x, test_pos):
  """Ridge regression (standardised features, penalty by CV on the train
  set) of a token's index from its vector.

  Returns:
    (R^2, mean absolute error in tokens) on the test tokens.
  """
  from sklearn.linear_model import RidgeCV  # pylint: disable=g-import-not-at-top
  from sklearn.pipeline import make_pipeline  # pylint: disable=g-import-not-at-top
  from sklearn.preprocessing import StandardScaler  # pylint: disable=g-import-not-at-top
  model = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-2, 4, 7)))
  guess = model.fit(train_x, train_pos).predict(test_x)
  test_pos = np.asarray(test_pos, np.float64)
  sst = np.sum((test_pos - np.mean(train_pos)) ** 2)
  return (float(1.0 - np.sum((test_pos - guess) ** 2) / sst),
          float(np.mean(np.abs(test_pos - guess))))


def order_probe(train_x, train_y, tests):
  """`probe_predictions` of "b comes after a" from v_b - v_a.

  Args:
    train_x: float [m, H] differences; train_y: bool [m].
    tests: list of (x [m_i, H], y [m_i]) test sets.

  Returns:
    list of floats, the accuracy on each test set.
  """
  guess = probe_predictions(train_x, train_y,
                            np.concatenate([x for x, _ in tests]))
  ends = np.cumsum([len(y) for _, y in tests])[:-1]
  return [float(np.mean(g == np.asarray(y)))
          for g, (_, y) in zip(np.split(guess, ends), tests)]


def layer_outputs(model, ids):
  """The embedding output and every layer's output for one sequence.

  Args:
    model: a BertModel (or its `graph_forward`); ids: int [n].

  Returns:
    float32 numpy [L + 1, n, H] (index 0: the embeddings after LayerNorm).
  """
  out = model({"input_ids": np.asarray(ids, np.int32)[None]})
  return np.stack([np.asarray(out["embedding_output"])[0]] + [
      np.asarray(x)[0] for x in out["encoder_outputs"]])


def sentence_features(model, word_table, pieces, cls_id, sep_id, rng,
                      max_pairs):
  """What the layer probes need from one sentence, original and shuffled.

  Args:
    model: a BertModel (or its `graph_forward`).
    word_table: float [V, H], its word embeddings.
    pieces: list over W >= 2 words of lists of piece ids.
    cls_id, sep_id: ints.
    rng: numpy RandomState (the word shuffle and the pairs).
    max_pairs: int, random pairs per sentence.

  Returns:
    dict of numpy arrays, "tokens" meaning tokens 1..n-2 ([CLS] and [SEP]
    left out) and R = L + 2 rows of vectors (the word rows alone, then the
    embedding output and each layer's output): vectors [R, tokens, H],
    position [tokens], pair_diff / near_diff [R, m, H] (v_b - v_a),
    pair_after / near_after bool [m], shuffle_cos [R, tokens] (each token's
    cosine with itself in the sentence with its words shuffled).
  """
  ids, word = pack_words(pieces, np.arange(len(pieces)), cls_id, sep_id)
  perm = rng.permutation(len(pieces))
  while np.all(perm == np.arange(len(pieces))):
    perm = rng.permutation(len(pieces))
  shuffled_ids, shuffled_word = pack_words(pieces, perm, cls_id, sep_id)
  where = shuffled_token_index(word, shuffled_word)
  table = np.asarray(word_table)
  vectors = np.concatenate([table[ids][None], layer_outputs(model, ids)])
  shuffled = np.concatenate([table[shuffled_ids][None],
                             layer_outputs(model, shuffled_ids)])[:, where]
  dot = np.sum(vectors * shuffled, axis=-1)
  cos = dot / (np.linalg.norm(vectors, axis=-1)
               * np.linalg.norm(shuffled, axis=-1))
  pairs, near = order_pairs(len(ids), max_pairs, rng)
  tokens = slice(1, len(ids) - 1)
  return {"vectors": vectors[:, tokens],
          "position": np.arange(len(ids))[tokens],
          "pair_diff": vectors[:, pairs[:, 1]] - vectors[:, pairs[:, 0]],
          "pair_after": pairs[:, 1] > pairs[:, 0],
          "near_diff": vectors[:, near[:, 1]] - vectors[:, near[:, 0]],
          "near_after": near[:, 1] > near[:, 0],
          "shuffle_cos": cos[:, tokens]}


def layer_table(train, test):
  """Per row of vectors: the position and order probes and the shuffle
  similarity, trained on the train sentences and scored on the test ones.

  Args:
    train, test: dicts of `sentence_features` arrays concatenated over the
      sentences (the token and pair axes).

  Returns:
    list over the R rows of (position R^2, position MAE, order accuracy
    on random pairs, order accuracy on neighbours, mean shuffle cosine).
  """
  rows = []
  for r in range(train["vectors"].shape[0]):
    r2, mae = position_probe(train["vectors"][r], train["position"],
                             test["vectors"][r], test["position"])
    pair_acc, near_acc = order_probe(
        train["pair_diff"][r], train["pair_after"],
        [(test["pair_diff"][r], test["pair_after"]),
         (test["near_diff"][r], test["near_after"])])
    rows.append((r2, mae, pair_acc, near_acc,
                 float(np.mean(test["shuffle_cos"][r]))))
  return rows


def plot_layers(names, rows, path):
  """The `layers` table as one figure: position R^2, the two order
  accuracies and the shuffle cosine against the row (word rows, embedding
  output, layer 1..L).

  Args:
    names: list of R row names; rows: list of R `layer_table` tuples.
    path: PNG written atomically.
  """
  from bert_tf2.analysis import plots  # pylint: disable=g-import-not-at-top
  rows = np.asarray(rows, np.float64)
  fig, ax = plots.new_figure(figsize=(7.5, 4.2))
  x = np.arange(len(names))
  for column, label in ((0, "position R^2 (probe)"),
                        (2, "order accuracy, random pairs"),
                        (3, "order accuracy, neighbours"),
                        (4, "cos(original, words shuffled)")):
    ax.plot(x, rows[:, column], marker="o", label=label)
  ax.axhline(0.5, color="grey", ls=":", lw=1)
  ax.set_xticks(x)
  ax.set_xticklabels(["words" if i == 0 else "emb" if i == 1 else str(i - 1)
                      for i in range(len(names))])
  ax.set_xlabel("vectors (word rows only, embedding output, layer)")
  ax.set_ylim(min(0.0, rows[:, [0, 2, 3, 4]].min()) - 0.02, 1.02)
  ax.set_title("Position through the layers (order chance 0.5)", fontsize=10)
  ax.legend(fontsize=8)
  plots.save_figure(fig, path)


def concat_features(features):
  """`sentence_features` dicts joined along the token / pair axes."""
  axis = {"vectors": 1, "pair_diff": 1, "near_diff": 1, "shuffle_cos": 1}
  return {k: np.concatenate([f[k] for f in features], axis=axis.get(k, 0))
          for k in features[0]}


def layer_sentences(tokenizer, count, max_seq_length, min_words=8):
  """BBC News sentences as lists of word-piece ids per word.

  Args:
    tokenizer: FullTokenizer; count: int, how many sentences at most.
    max_seq_length: int, a sentence's pieces + [CLS] + [SEP] must fit.
    min_words: int, shorter sentences are skipped.

  Returns:
    list of lists (words) of lists (pieces) of int ids, in corpus order.
  """
  from bert_tf2.analysis import positions_why  # pylint: disable=g-import-not-at-top
  out = []
  for article in positions_why.bbc_articles(LAYER_ARTICLES):
    for sentence in article:
      words = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(w))
               for w in sentence.split()]
      words = [w for w in words if w]
      if (len(words) >= min_words
          and sum(map(len, words)) <= max_seq_length - 2):
        out.append(words)
      if len(out) == count:
        return out
  return out


LAYER_ARTICLES = 200
TEST_EVERY = 4  # Every 4th sentence is held out.


# --- masking ----------------------------------------------------------------

def topic_sequences(shifts, count, seq_length, vocab_size, stay, rng):
  """Sequences of a synthetic language whose topic only bigrams reveal.

  Tokens are 1..vocab_size-1. A sequence of topic t starts anywhere; each
  next token is the previous one plus shifts[t] (mod, within 1..V-1) with
  probability `stay`, else uniform. Every topic has the uniform unigram
  distribution, so a bag of tokens says nothing of the topic: a model must
  relate neighbours.

  Args:
    shifts: list of int, one per topic; count, seq_length, vocab_size: int;
    stay: float in [0, 1]; rng: numpy RandomState.

  Returns:
    (ids int32 [count, seq_length], topic int [count]).

  >>> ids, topic = topic_sequences([1], 1, 4, 5, 1.0, np.random.RandomState(0))
  >>> bool(np.all((np.diff(ids[0]) % 4) == 1)), topic.tolist()
  (True, [0])
  """
  n = vocab_size - 1
  topic = rng.randint(len(shifts), size=count)
  ids = np.zeros((count, seq_length), np.int64)
  ids[:, 0] = rng.randint(n, size=count)
  step = np.asarray(shifts)[topic]
  for i in range(1, seq_length):
    keep = rng.rand(count) < stay
    ids[:, i] = np.where(keep, (ids[:, i - 1] + step) % n,
                         rng.randint(n, size=count))
  return (ids + 1).astype(np.int32), topic


def mask_tokens(ids, rate, mask_id, vocab_size, rng):
  """BERT's masking at `rate`: round(rate x length) positions (at least 1)
  per sequence are predicted; of those 80% become mask_id, 10% a random
  token, 10% stay.

  Args:
    ids: int [B, S] (tokens 1..vocab_size-1); rate: float in (0, 1];
    mask_id: int; rng: numpy RandomState.

  Returns:
    (inputs int32 [B, S], weights float32 [B, S]: 1 at predicted positions).

  >>> x, w = mask_tokens(np.ones([2, 10], np.int32), 0.4, 9, 5,
  ...                    np.random.RandomState(0))
  >>> w.sum(axis=1).tolist()
  [4.0, 4.0]
  """
  b, s = ids.shape
  m = max(1, int(round(rate * s)))
  chosen = np.argsort(rng.rand(b, s), axis=1)[:, :m]
  weights = np.zeros((b, s), np.float32)
  np.put_along_axis(weights, chosen, 1.0, axis=1)
  draw = rng.rand(b, s)
  inputs = np.array(ids, np.int32)
  inputs[(weights > 0) & (draw < 0.8)] = mask_id
  swap = (weights > 0) & (draw >= 0.8) & (draw < 0.9)
  inputs[swap] = rng.randint(1, vocab_size, size=int(swap.sum()))
  return inputs, weights


MASKING_SHIFTS = (1, 2, 3, 5)


def masking_probe(net, data, train_share=0.5):
  """Topic accuracy of a logistic regression on mean-pooled last-layer
  vectors (frozen), trained on the first half of `data`, scored on the rest.

  Args:
    net: toy_training.ToyNet; data: (ids [N, S], topic [N]).

  Returns:
    float.
  """
  ids, topic = data
  x = net.sequence_output(ids, np.ones_like(ids)).mean(axis=1)
  cut = int(len(topic) * train_share)
  guess = probe_predictions(x[:cut], topic[:cut], x[cut:])
  return float(np.mean(guess == topic[cut:]))


def masking_run(rate, seed, args):
  """Pretrains one tiny BERT by masked LM at `rate` and probes it.

  The seed fixes the initial weights and the sequences (the same for every
  rate); only the masking draws depend on the rate.

  Returns:
    (probe accuracy before training, after training).
  """
  from bert_tf2.analysis import toy_training  # pylint: disable=g-import-not-at-top
  v = args.vocab_size
  config = toy_training.tiny_config(v + 1, args.hidden_size, args.layers,
                                    args.heads, args.seq_length)
  net = toy_training.ToyNet(config, 1, seed, args.learning_rate)
  make = lambda count, rng: topic_sequences(
      MASKING_SHIFTS, count, args.seq_length, v, args.stay, rng)
  probe_data = make(args.probe_examples, np.random.RandomState([seed, 0, 1]))
  before = masking_probe(net, probe_data)
  mask_rng = np.random.RandomState([seed, int(round(rate * 1000))])
  for step in range(1, args.steps + 1):
    ids, _ = make(args.batch, np.random.RandomState([seed, step, 0]))
    inputs, weights = mask_tokens(ids, rate, v, v, mask_rng)
    net.train_step({"input_ids": inputs, "input_mask": np.ones_like(ids),
                    "targets": ids[None], "weights": weights[None]})
  return before, masking_probe(net, probe_data)


def rates_differ(accuracies):
  """Whether the rates' mean accuracies differ beyond the seed noise.

  Args:
    accuracies: float [R, N]: N seeds per rate (N >= 2).

  Returns:
    (largest gap between two rates' means, the 95% half-width of a
    difference of two means, 1.96 x sqrt(2 / N) x the pooled seed sd):
    the gap exceeds the noise when it is the larger.

  >>> gap, noise = rates_differ([[0.5, 0.7], [0.9, 0.9]])
  >>> round(gap, 2), round(noise, 3)
  (0.3, 0.196)
  """
  a = np.asarray(accuracies, np.float64)
  means = a.mean(axis=1)
  sd = np.sqrt(np.mean(a.var(axis=1, ddof=1)))
  return (float(means.max() - means.min()),
          float(1.96 * np.sqrt(2.0 / a.shape[1]) * sd))


# --- running a checkpoint ----------------------------------------------------

def load_model(bert_config_file, init_checkpoint):
  """(BertModel with the checkpoint's weights, BertConfig)."""
  import modeling  # pylint: disable=g-import-not-at-top
  config = modeling.BertConfig.from_json_file(bert_config_file)
  model = modeling.BertModel(config)
  model({"input_ids": np.zeros([1, 2], np.int32)})
  if init_checkpoint:
    modeling.init_from_checkpoint(model, init_checkpoint)
  return model, config


def graph_forward(model, **call_kwargs):
  """`model(inputs, **call_kwargs)` as one graph function.

  The commands run the model once per sentence, article or batch; called
  eagerly a MiniLM forward pass took 68-74 ms at 128 tokens against 15 ms
  in a graph function (2 cores). The first call traces it for int32 inputs
  of any batch size and length, so every later call matches that trace.
  (`nonlinearity` makes one per patched forward pass, inside the patch's
  context; its calibration pass stays eager: it reads values in NumPy.)

  Args:
    model: a BertModel; call_kwargs: its call's keyword arguments.

  Returns:
    fn(inputs: dict of int arrays [batch, length]) -> the model's outputs
    (its tf.function: fn.tf_function).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  fn = tf.function(lambda inputs: model(inputs, **call_kwargs),
                   autograph=False, reduce_retracing=True)

  def call(inputs):
    inputs = {k: np.asarray(v, np.int32) for k, v in inputs.items()}
    fn.get_concrete_function({k: tf.TensorSpec([None] * v.ndim, tf.int32)
                              for k, v in inputs.items()})
    return fn(inputs)
  call.tf_function = fn
  return call


def _tokenizer(vocab_file):
  from tokenization import FullTokenizer  # pylint: disable=g-import-not-at-top
  return FullTokenizer(vocab_file=vocab_file, do_lower_case=True)


def _encode(tokenizer, text, max_len):
  from bert_tf2.analysis import attention  # pylint: disable=g-import-not-at-top
  _, ids, types = attention.encode_text(tokenizer, text,
                                        max_seq_length=max_len)
  return ids[None], types[None]


def bbc_sentences(count, min_words=12):
  """The first `count` sentences of >= min_words words of 40 BBC articles."""
  from bert_tf2.analysis import positions_why  # pylint: disable=g-import-not-at-top
  return [s for a in positions_why.bbc_articles(40) for s in a
          if len(s.split()) >= min_words][:count]


def run_scale(args):
  from bert_tf2.analysis import checkpoint_io  # pylint: disable=g-import-not-at-top
  model, config = load_model(args.bert_config_file, args.init_checkpoint)
  tok = _tokenizer(args.vocab_file)
  sentences = bbc_sentences(args.sentences)
  heads = config.num_attention_heads
  read = lambda n: checkpoint_io.read_variable(args.init_checkpoint, n)
  per_layer = [[] for _ in range(config.num_hidden_layers)]
  forward = graph_forward(model)
  for text in sentences:
    ids, types = _encode(tok, text, args.max_seq_length)
    out = forward({"input_ids": ids, "token_type_ids": types})
    inputs = [out["embedding_output"]] + list(out["encoder_outputs"][:-1])
    for layer, x in enumerate(inputs):
      scope = "bert/encoder/layer_%d/attention/self/" % layer
      per_layer[layer].append(attention_logits(
          np.asarray(x)[0], read(scope + "query/kernel"),
          read(scope + "query/bias"), read(scope + "key/kernel"),
          read(scope + "key/bias"), heads))
  d = config.hidden_size // heads
  print("%d BBC sentences, %d heads of size d=%d" % (len(sentences), heads, d))
  print("| layer | entropy, q.k/sqrt(d) | saturated rows | entropy, q.k "
        "| saturated rows | uniform entropy |")
  print("|---|---|---|---|---|---|")
  for row in scale_rows(per_layer, d):
    print("| %d | %.2f | %.1f%% | %.2f | %.1f%% | %.2f |"
          % (row[0], row[1], 100 * row[2], row[3], 100 * row[4], row[5]))


def run_decode(args):
  from bert_tf2.analysis import checkpoint_io  # pylint: disable=g-import-not-at-top
  read = lambda n: checkpoint_io.read_variable(args.init_checkpoint, n)
  word, position, segment = read(WORD), read(POSITION), read(SEGMENT)
  position = position[:args.max_positions or None]
  rng = np.random.RandomState(args.seed)
  n = args.samples
  tokens = rng.randint(0, word.shape[0], n)
  positions = rng.randint(0, position.shape[0], n)
  segments = rng.randint(0, segment.shape[0], n)
  acc = decode_sums(word, position, segment, tokens, positions, segments)
  print("%d random (token, position, segment) triples of %d x %d x %d"
        % (n, word.shape[0], position.shape[0], segment.shape[0]))
  print("| recovered | token | position | segment | all three |")
  print("|---|---|---|---|---|")
  print("| accuracy | %.3f | %.3f | %.3f | %.3f |" % acc)


def run_tied(args):
  from bert_tf2.analysis import checkpoint_io  # pylint: disable=g-import-not-at-top
  report = tied_report(checkpoint_io.list_variables(args.init_checkpoint))
  print("| checkpoint variable | shape |")
  print("|---|---|")
  print("| %s | %s |" % (WORD, report["word_embeddings"]))
  for name, shape in sorted(report["mlm_head"].items()):
    print("| %s | %s |" % (name, shape))
  if not report["mlm_head"]:
    print("| (no cls/predictions/ variables: no MLM head saved) | |")
  print("[vocab, hidden] matrices: %s; MLM head tied to the word table: %s"
        % (", ".join(report["output_matrices"]), tied_answer(report)))
  if args.bert_config_file:
    import modeling  # pylint: disable=g-import-not-at-top
    check = model_tie_check(
        modeling.BertConfig.from_json_file(args.bert_config_file))
    print("our PretrainingModel: [vocab, hidden] variables %s; MLM head "
          "variables %s; word-table rows with a gradient from the MLM "
          "logits of an all-id-0 input: %d of %d"
          % (check["vocab_matrices"], check["head_variables"],
             check["logits_grad_rows"], check["vocab_size"]))


def run_limits(args):
  model, config = load_model(args.bert_config_file, args.init_checkpoint)
  print("| input | what our BertModel does |")
  print("|---|---|")
  for case, outcome in limit_cases(model, config):
    print("| %s | %s |" % (case, outcome.replace("|", "/")))


def run_flops(args):
  d, f = args.hidden, args.intermediate
  print("per layer, d=%d, d_ff=%d: attention 4 n^2 d overtakes 8 n d^2 + "
        "4 n d d_ff at n = 2 d + d_ff = %d" % (d, f, crossover_length(d, f)))
  print("| n | attention GFLOP | projections + feed-forward GFLOP | "
        "attention share |")
  print("|---|---|---|---|")
  for n in (128, 512, 1024, 2048, 4096, 8192):
    att, dense = layer_flops(n, d, f)
    print("| %d | %.2f | %.2f | %.0f%% |" % (n, att / 1e9, dense / 1e9,
                                            100.0 * att / (att + dense)))


def run_pooling(args):
  model, _ = load_model(args.bert_config_file, args.init_checkpoint)
  tok = _tokenizer(args.vocab_file)
  data = bbc_by_category(args.per_category)
  cls, mean, labels = [], [], []
  forward = graph_forward(model)
  for category, text in data:
    ids, types = _encode(tok, text, args.max_seq_length)
    seq = np.asarray(forward({"input_ids": ids,
                              "token_type_ids": types})["sequence_output"])[0]
    cls.append(seq[0])
    mean.append(seq.mean(axis=0))
    labels.append(category)
  print("%d BBC articles, %d topics, first %d tokens" % (
      len(labels), len(set(labels)), args.max_seq_length))
  print("| pooling | 1-NN topic accuracy | same-topic pair AUC |")
  print("|---|---|---|")
  for name, vecs in (("[CLS] (sequence_output[:, 0])", cls),
                     ("mean over tokens", mean)):
    print("| %s | %.3f | %.3f |" % (name, nearest_neighbour_accuracy(
        vecs, labels), pair_auc(vecs, labels)))


def run_long_text(args):
  for flag, value, least in (("max_articles", args.max_articles, 0),
                             ("max_seq_length", args.max_seq_length, 3),
                             ("doc_stride", args.doc_stride, 1)):
    if value < least:
      raise InputError("--%s=%d: must be at least %d" % (flag, value, least))
  model, _ = load_model(args.bert_config_file, args.init_checkpoint)
  tok = _tokenizer(args.vocab_file)
  data = bbc_labelled(args.max_articles)
  if not data:
    raise InputError("--max_articles=%d: no BBC articles" % args.max_articles)
  ids = [tok.convert_tokens_to_ids(tok.tokenize(text)) for _, _, text in data]
  cls_id, sep_id = tok.convert_tokens_to_ids(["[CLS]", "[SEP]"])
  features, example = article_windows(ids, args.max_seq_length,
                                      args.doc_stride, cls_id, sep_id)
  mean, cls = window_vectors(graph_forward(model), features)
  counts = np.bincount(example, minlength=len(data))
  pieces = np.array([len(i) for i in ids])
  budget = args.max_seq_length - 2
  print("%d BBC articles (%d windows of %d, stride %d): word pieces median "
        "%d, %d articles longer than %d, %d longer than 510; windows per "
        "article median %d, max %d"
        % (len(data), len(example), args.max_seq_length, args.doc_stride,
           np.median(pieces), np.sum(pieces > budget), budget,
           np.sum(pieces > 510), np.median(counts), counts.max()))
  splits = np.array([s for s, _, _ in data])
  labels = np.array([t for _, t, _ in data])
  train, test = splits == "train", splits == "test"
  if len(set(labels[train])) < 2 or not test.any():
    raise InputError("--max_articles=%d: the train split needs two topics "
                     "and the test split an article" % args.max_articles)
  buckets = np.array([window_bucket(c) for c in counts])
  names = [b for b in ("1", "2-3", "4-6", "7+") if (buckets[test] == b).any()]
  print("logistic regression on the %d train articles' vectors, topic "
        "accuracy on the %d test articles (by windows per article: %s)"
        % (train.sum(), test.sum(), ", ".join(
            "%s: %d" % (b, np.sum(buckets[test] == b)) for b in names)))
  print("| article vector | test accuracy | " + " | ".join(
      "%s window%s" % (b, "" if b == "1" else "s") for b in names) + " |")
  print("|---|---|" + "---|" * len(names))
  for pool_name, vectors in (("mean pooling", mean), ("[CLS]", cls)):
    first, averaged = article_vectors(vectors, example, len(data))
    for how, x in (("first window (truncation)", first),
                   ("mean of all windows", averaged)):
      right = probe_predictions(x[train], labels[train], x[test]) == labels[test]
      print("| %s, %s | %.3f | " % (how, pool_name, right.mean()) + " | ".join(
          "%.3f" % right[buckets[test] == b].mean() for b in names) + " |")


def run_nonlinearity(args):
  import modeling  # pylint: disable=g-import-not-at-top
  if args.max_articles < 20:
    raise InputError("--max_articles=%d: must be at least 20"
                     % args.max_articles)
  model, config = load_model(args.bert_config_file, args.init_checkpoint)
  config.hidden_act = "linear"
  linear = modeling.BertModel(config)
  linear({"input_ids": np.zeros([1, 2], np.int32)})
  modeling.init_from_checkpoint(linear, args.init_checkpoint)
  tok = _tokenizer(args.vocab_file)
  data = bbc_labelled(args.max_articles)
  encoded = [_encode(tok, text, args.max_seq_length) for _, _, text in data]

  def vectors(net, eager=False):
    # In a graph function made (so traced) inside the patch's context; the
    # calibration pass runs eagerly: its patch reads values in NumPy.
    forward = net if eager else graph_forward(net)
    return np.stack([np.asarray(forward({"input_ids": ids,
                                         "token_type_ids": t})[
        "sequence_output"])[0].mean(axis=0) for ids, t in encoded])

  record = {}
  with nonlinearity_patch("as trained", record=record):
    base = vectors(model, eager=True)
  scales = {k: float(np.mean(v)) for k, v in record.items()}
  labels = np.array([t for _, t, _ in data])
  train = np.array([s == "train" for s, _, _ in data])
  print("%d BBC articles (first %d tokens), topic probe trained on %d, "
        "scored on the other %d (dev + test); mean-pooled last layer"
        % (len(data), args.max_seq_length, train.sum(), (~train).sum()))
  print("| forward pass | cos with the trained model's vector | topic "
        "accuracy |")
  print("|---|---|---|")
  for kind in NONLINEARITIES:
    if kind == "as trained":
      got = base
    else:
      with nonlinearity_patch(kind, scales=scales):
        got = vectors(linear if kind == "GELU -> identity" else model)
    cos = np.sum(got * base, 1) / (np.linalg.norm(got, axis=1)
                                   * np.linalg.norm(base, axis=1))
    right = probe_predictions(got[train], labels[train], got[~train])
    print("| %s | %.3f | %.3f |" % (kind, cos.mean(),
                                    np.mean(right == labels[~train])))


def run_self_attention(args):
  model, config = load_model(args.bert_config_file, args.init_checkpoint)
  tok = _tokenizer(args.vocab_file)
  heads = config.num_attention_heads
  rows = [[] for _ in range(config.num_hidden_layers)]
  lengths = []
  forward = graph_forward(model, return_attention_probs=True)
  for text in bbc_sentences(args.sentences):
    ids, types = _encode(tok, text, args.max_seq_length)
    out = forward({"input_ids": ids, "token_type_ids": types})
    inputs = [out["embedding_output"]] + list(out["encoder_outputs"][:-1])
    lengths.append(ids.shape[1])
    for layer, x in enumerate(inputs):
      trained = np.asarray(out["attention_probs"][layer])[0]
      free = projection_free_attention(np.asarray(x)[0], heads)
      rows[layer].append(self_weight(trained) + self_weight(free))
  print("%d BBC sentences, %d-%d tokens (uniform weight 1/n: %.3f on "
        "average); %d heads of size %d, both ways"
        % (len(lengths), min(lengths), max(lengths),
           np.mean([1.0 / n for n in lengths]), heads,
           config.hidden_size // heads))
  print("| layer | weight on itself, trained Q, K | itself the largest, "
        "trained | weight on itself, Q = K = V = input | itself the "
        "largest, Q = K = V = input |")
  print("|---|---|---|---|---|")
  for layer, per_sentence in enumerate(rows):
    print("| %d | %.3f | %.1f%% | %.3f | %.1f%% |" % (
        (layer,) + tuple(np.mean(per_sentence, axis=0) * [1, 100, 1, 100])))


def run_layers(args):
  for flag, value, least in (("sentences", args.sentences, 2 * TEST_EVERY),
                             ("max_seq_length", args.max_seq_length, 10),
                             ("max_pairs", args.max_pairs, 1)):
    if value < least:
      raise InputError("--%s=%d: must be at least %d" % (flag, value, least))
  if args.output_plot and not os.path.isdir(
      os.path.dirname(os.path.abspath(args.output_plot))):
    raise InputError("--output_plot=%s: its folder does not exist"
                     % args.output_plot)
  model, config = load_model(args.bert_config_file, args.init_checkpoint)
  if args.max_seq_length > config.max_position_embeddings:
    raise InputError("--max_seq_length=%d: the model has %d positions"
                     % (args.max_seq_length, config.max_position_embeddings))
  tok = _tokenizer(args.vocab_file)
  cls_id, sep_id = tok.convert_tokens_to_ids(["[CLS]", "[SEP]"])
  sentences = layer_sentences(tok, args.sentences, args.max_seq_length)
  if len(sentences) < 2 * TEST_EVERY:
    raise InputError("--max_seq_length=%d: only %d BBC sentences fit"
                     % (args.max_seq_length, len(sentences)))
  rng = np.random.RandomState(args.seed)
  table = model.embeddings.word_embeddings
  forward = graph_forward(model)
  features = [sentence_features(forward, table, s, cls_id, sep_id, rng,
                                args.max_pairs) for s in sentences]
  test = [i % TEST_EVERY == TEST_EVERY - 1 for i in range(len(features))]
  rows = layer_table(
      concat_features([f for f, t in zip(features, test) if not t]),
      concat_features([f for f, t in zip(features, test) if t]))
  lengths = [len(f["position"]) for f in features]
  print("%d BBC sentences (%d held out), %d-%d word pieces (median %d); "
        "probes trained on the others' tokens and pairs"
        % (len(features), sum(test), min(lengths), max(lengths),
           np.median(lengths)))
  print("| vectors | position R^2 | position MAE (tokens) | order accuracy, "
        "random pairs | order accuracy, neighbours | cos(original, words "
        "shuffled) |")
  print("|---|---|---|---|---|---|")
  names = ["word rows only (no position)", "embeddings (layer 0)"] + [
      "layer %d" % (i + 1) for i in range(len(rows) - 2)]
  for name, row in zip(names, rows):
    print("| %s | %.3f | %.2f | %.3f | %.3f | %.3f |" % ((name,) + row))
  if args.output_plot:
    plot_layers(names, rows, args.output_plot)
    print("wrote %s" % args.output_plot)


def run_masking(args):
  for flag, value, least in (("steps", args.steps, 0), ("seeds", args.seeds, 1),
                             ("batch", args.batch, 1),
                             ("seq_length", args.seq_length, 4),
                             ("vocab_size", args.vocab_size, 8),
                             ("probe_examples", args.probe_examples, 8)):
    if value < least:
      raise InputError("--%s=%d: must be at least %d" % (flag, value, least))
  if not 0.0 <= args.stay <= 1.0:
    raise InputError("--stay=%g: must be in [0, 1]" % args.stay)
  if not args.rates or not all(0.0 < r <= 1.0 for r in args.rates):
    raise InputError("--rates=%s: each must be in (0, 1]"
                     % ",".join("%g" % r for r in args.rates))
  acc = [[masking_run(rate, seed, args) for seed in range(args.seeds)]
         for rate in args.rates]
  print("synthetic language: %d topics told apart only by bigrams (next "
        "token = previous + shift with probability %.2f), %d tokens, "
        "sequences of %d; tiny BERT (%d layers, hidden %d), %d masked-LM "
        "steps of %d sequences, %d seeds; topic probe (chance %.2f) on "
        "mean-pooled frozen vectors, %d sequences (half to train)"
        % (len(MASKING_SHIFTS), args.stay, args.vocab_size - 1,
           args.seq_length, args.layers, args.hidden_size, args.steps,
           args.batch, args.seeds, 1.0 / len(MASKING_SHIFTS),
           args.probe_examples))
  print("| masking rate | probe accuracy, untrained | probe accuracy, "
        "pretrained (per seed) | mean | sd |")
  print("|---|---|---|---|---|")
  for rate, runs in zip(args.rates, acc):
    after = [a for _, a in runs]
    print("| %g%% | %.3f | %s | %.3f | %.3f |" % (
        100 * rate, np.mean([b for b, _ in runs]),
        " ".join("%.3f" % a for a in after), np.mean(after),
        np.std(after, ddof=1) if len(after) > 1 else 0.0))
  if args.seeds > 1 and len(args.rates) > 1:
    gap, noise = rates_differ([[a for _, a in runs] for runs in acc])
    print("largest gap between rates %.3f, noise (95%% of a difference of "
          "two means) %.3f: the rates %s" % (
              gap, noise, "differ beyond the noise" if gap > noise
              else "do not differ beyond the noise"))


def model_parser(sub, name):
  """A sub-command that runs a checkpoint: --bert_config_file,
  --init_checkpoint and --vocab_file, all required."""
  p = sub.add_parser(name)
  for flag in ("bert_config_file", "init_checkpoint", "vocab_file"):
    p.add_argument("--" + flag, required=True)
  return p


def build_parser():
  parser = argparse.ArgumentParser(
      prog="python -m bert_tf2.analysis.questions")
  sub = parser.add_subparsers(dest="command", required=True)
  p = sub.add_parser("tied")
  p.add_argument("--init_checkpoint", required=True)
  p.add_argument("--bert_config_file")
  p = model_parser(sub, "scale")
  p.add_argument("--sentences", type=int, default=50)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = sub.add_parser("decode")
  p.add_argument("--init_checkpoint", required=True)
  p.add_argument("--samples", type=int, default=2000)
  p.add_argument("--max_positions", type=int, default=0)
  p.add_argument("--seed", type=int, default=0)
  p = sub.add_parser("limits")
  p.add_argument("--bert_config_file", required=True)
  p.add_argument("--init_checkpoint")
  p = sub.add_parser("flops")
  p.add_argument("--hidden", type=int, default=384)
  p.add_argument("--intermediate", type=int, default=1536)
  p = model_parser(sub, "pooling")
  p.add_argument("--per_category", type=int, default=20)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = model_parser(sub, "long_text")
  p.add_argument("--max_articles", type=int, default=0,
                 help="0: all 2,225 (spread evenly over the sorted files)")
  p.add_argument("--max_seq_length", type=int, default=128)
  p.add_argument("--doc_stride", type=int, default=64)
  p = model_parser(sub, "self_attention")
  p.add_argument("--sentences", type=int, default=50)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = model_parser(sub, "nonlinearity")
  p.add_argument("--max_articles", type=int, default=300)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = model_parser(sub, "layers")
  p.add_argument("--sentences", type=int, default=400)
  p.add_argument("--max_seq_length", type=int, default=64)
  p.add_argument("--max_pairs", type=int, default=20,
                 help="random token pairs per sentence for the order probe")
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--output_plot", default=None,
                 help="also draw the table as a PNG here")
  p = sub.add_parser("masking")
  p.add_argument("--rates", type=lambda t: [float(v) for v in t.split(",")],
                 default=[0.10, 0.15, 0.25, 0.40])
  p.add_argument("--seeds", type=int, default=4)
  p.add_argument("--steps", type=int, default=800)
  p.add_argument("--batch", type=int, default=64)
  p.add_argument("--seq_length", type=int, default=32)
  p.add_argument("--vocab_size", type=int, default=33,
                 help="tokens 1..N-1, N = [MASK]")
  p.add_argument("--stay", type=float, default=0.8,
                 help="probability that a token follows its topic's shift")
  p.add_argument("--hidden_size", type=int, default=64)
  p.add_argument("--layers", type=int, default=1)
  p.add_argument("--heads", type=int, default=4)
  p.add_argument("--learning_rate", type=float, default=3e-3)
  p.add_argument("--probe_examples", type=int, default=1000)
  return parser


COMMANDS = {"tied": run_tied, "scale": run_scale, "decode": run_decode,
            "limits": run_limits, "flops": run_flops, "pooling": run_pooling,
            "long_text": run_long_text, "layers": run_layers,
            "self_attention": run_self_attention,
            "nonlinearity": run_nonlinearity, "masking": run_masking}


def main(argv=None):
  args = build_parser().parse_args(argv)
  try:
    COMMANDS[args.command](args)
  except InputError as e:
    raise SystemExit("error: %s" % e)


if __name__ == "__main__":
  main()
