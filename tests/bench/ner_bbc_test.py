"""bench.ner_bbc: the silver-tag rule of NER's precision gate."""

import os

from bench import ner_bbc
from bert_tf2.ner import reader


def test_capitalised_runs_are_entities_except_at_the_sentence_start():
  words = ["Gordon", "Brown", "told", "the", "Bank", "of", "England", "and",
           "Merrill", "Lynch", "."]
  # "Gordon Brown" starts the sentence: O (its capitals say nothing);
  # "of" breaks the run, as a lower-case word does.
  assert ner_bbc.silver_tags(words) == [
      "O", "O", "O", "O", "B-NAME", "O", "B-NAME", "O", "B-NAME", "I-NAME",
      "O"]
  assert ner_bbc.silver_tags([]) == []


def test_build_writes_conll_that_run_ner_reads(tmp_path, monkeypatch):
  article = ("train", "business", "Headline",
             ["Shares in Sony rose on Monday.", "Too short."])
  monkeypatch.setattr(ner_bbc.tasks_bbc, "articles", lambda: [article])
  counts = ner_bbc.build(str(tmp_path), sizes=(("train", 5), ("dev", 5)))
  assert counts == {"train": 1, "dev": 0}
  (sentence,) = reader.read_conll(os.path.join(tmp_path, "train.txt"))
  assert sentence.tokens == ["Shares", "in", "Sony", "rose", "on", "Monday",
                             "."]
  assert sentence.tags == ["O", "O", "B-NAME", "O", "O", "B-NAME", "O"]
