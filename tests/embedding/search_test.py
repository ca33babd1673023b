"""Cosine top-k search and the retrieval metrics."""

import numpy as np

from bert_tf2.embedding import search


def test_top_k_ranks_by_cosine_not_dot_product():
  corpus = np.array([[10., 0.], [0.6, 0.8], [0., 1.]])
  scores, ids = search.top_k(np.array([[0.6, 0.8]]), corpus, k=5)
  assert ids.tolist() == [[1, 2, 0]]     # k capped at the corpus size
  np.testing.assert_allclose(scores, [[1., 0.8, 0.6]], rtol=1e-6)


def test_recall_and_mrr_hand_computed():
  ranked = np.array([[3, 1, 2], [0, 2, 1], [1, 0, 3], [2, 3, 0]])
  gold = np.array([3, 1, 0, 1])   # ranks 1, 3, 2, absent
  m = search.retrieval_metrics(ranked, gold, ks=(1, 2, 3))
  assert m == {"recall@1": 0.25, "recall@2": 0.5, "recall@3": 0.75,
               "mrr": (1 + 1 / 3 + 1 / 2 + 0) / 4}
