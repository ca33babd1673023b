"""`pooling`: [CLS] against mean pooling for topic similarity on BBC
articles.
"""

import numpy as np

from bert_research.analysis.questions import common



def bbc_by_category(per_category):
  """[(topic, whitespace-normalised article)], per_category per topic."""
  from bert_research.analysis import positions_why  # pylint: disable=g-import-not-at-top
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


def run_pooling(args):
  model, _ = common.load_model(args.bert_config_file, args.init_checkpoint)
  tok = common.full_tokenizer(args.vocab_file)
  data = bbc_by_category(args.per_category)
  cls, mean, labels = [], [], []
  forward = common.graph_forward(model)
  for category, text in data:
    ids, types = common.encode(tok, text, args.max_seq_length)
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
