"""Cosine similarity, top-k search and retrieval metrics (numpy).

Example:
  >>> import numpy as np
  >>> corpus = np.array([[1., 0.], [0., 1.], [1., 1.]])
  >>> scores, ids = top_k(np.array([[1., .1]]), corpus, k=2)
  >>> ids.tolist()
  [[0, 2]]
  >>> retrieval_metrics(np.array([[0, 2], [1, 0]]), np.array([2, 1]), ks=(1,))
  {'recall@1': 0.5, 'mrr': 0.75}
"""

import numpy as np


def _normalize(x):
  x = np.asarray(x, np.float32)
  if x.ndim != 2:
    raise ValueError("expected a [num_texts, hidden_size] matrix, got shape "
                     "%s" % (x.shape,))
  return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def cosine_similarity(a, b):
  """float [len(a), len(b)] cosine similarities of the rows of a and b."""
  return _normalize(a) @ _normalize(b).T


def top_k(queries, corpus, k=10):
  """The k corpus rows most cosine-similar to each query.

  Returns:
    (scores float [num_queries, k'], ids int [num_queries, k']), best
    first, k' = min(k, len(corpus)); ties go to the lower corpus index.
  """
  scores = cosine_similarity(queries, corpus)
  k = min(int(k), scores.shape[1])
  ids = np.argsort(-scores, axis=1, kind="stable")[:, :k]
  return np.take_along_axis(scores, ids, axis=1), ids


def retrieval_metrics(ranked_ids, gold_ids, ks=(1, 10)):
  """recall@k for each k and the mean reciprocal rank (0 when not ranked).

  Args:
    ranked_ids: int [num_queries, n], corpus ids best first.
    gold_ids: int [num_queries], the one relevant id of each query.
    ks: the cut-offs.
  """
  ranked_ids = np.asarray(ranked_ids)
  gold_ids = np.asarray(gold_ids).reshape(-1, 1)
  hits = ranked_ids == gold_ids
  ranks = np.where(hits.any(axis=1), hits.argmax(axis=1) + 1, 0)
  out = {"recall@%d" % k: float(np.mean((ranks > 0) & (ranks <= k)))
         for k in ks}
  out["mrr"] = float(np.mean(np.where(ranks > 0, 1. / np.maximum(ranks, 1),
                                      0.)))
  return out
