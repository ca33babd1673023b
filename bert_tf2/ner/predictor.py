# coding=utf-8
"""`EntityTagger`: NER's Python predictor, raw texts -> words, tags and
entity spans (character offsets of the raw text).

`served_answers` turns the serving_default outputs of the SavedModel of
`bert_tf2.ner.serving` into `EntityTagger`'s answers:

  >>> serve = tf.saved_model.load(export_dir).signatures[
  ...     "serving_default"]                                  # doctest: +SKIP
  >>> texts = ["江泽民在北京。"]
  >>> [a["entities"] for a in served_answers(
  ...     texts, serve(text=tf.constant(texts)))]            # doctest: +SKIP
  [[{'type': 'PER', 'start': 0, 'end': 3, 'text': '江泽民'},
    {'type': 'LOC', 'start': 4, 'end': 6, 'text': '北京'}]]

Example (spans from words and tags):
  >>> entities("Hi, Ann Lee!", ["hi", ",", "ann", "lee", "!"],
  ...          ["O", "O", "B-PER", "I-PER", "O"])
  [{'type': 'PER', 'start': 4, 'end': 11, 'text': 'Ann Lee'}]
"""

import os

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import text_inputs
from bert_tf2.common import serving
from bert_tf2.ner import schemes
from bert_tf2.ner import serving as ner_serving
from bert_tf2.predict.text import TextPredictor
from tokenization.text import strip_accents


def align_words(text, words, do_lower_case=True):
  """Character spans [(start, end)] of `words` (BasicTokenizer output, so
  lower-cased and accent-stripped when do_lower_case) in raw `text`; None
  for a word not found (e.g. "[UNK]" for an over-long word)."""
  norm, owner = [], []
  for i, char in enumerate(text):
    for c in strip_accents(char.lower()) if do_lower_case else char:
      norm.append(c)
      owner.append(i)
  norm = "".join(norm)
  spans = []
  cursor = 0
  for word in words:
    at = norm.find(word, cursor)
    if at < 0 or not word:
      spans.append(None)
      continue
    spans.append((owner[at], owner[at + len(word) - 1] + 1))
    cursor = at + len(word)
  return spans


def entities(text, words, tags, do_lower_case=True, spans=None):
  """Entity dicts {type, start, end, text} (character offsets in `text`;
  the words' spans found by `align_words`, unless given)."""
  if spans is None:
    spans = align_words(text, words, do_lower_case)
  out = []
  for kind, first, last in schemes.chunks(list(tags)):
    located = [s for s in spans[first:last] if s is not None]
    if not located:
      continue
    start, end = located[0][0], located[-1][1]
    out.append({"type": kind, "start": start, "end": end,
                "text": text[start:end]})
  return out


class EntityTagger(TextPredictor):
  """NER's Python predictor of a `TokenTextModel` (e.g.
  `bert_tf2.models.load(output_dir)`): `predict(texts)` one {"words",
  "tags", "entities"} per text; `tagger(texts)` the entities alone."""

  def __init__(self, model, batch_size=32):
    if isinstance(model, (str, bytes, os.PathLike)):
      raise InputError(
          "EntityTagger(%r): a directory; a run's output_dir loads with "
          "bert_tf2.models.load_predictor(output_dir), an exported "
          "SavedModel answers through tf.saved_model.load(export_dir)."
          "signatures['serving_default'](text=...) and "
          "bert_tf2.ner.predictor.served_answers(texts, outputs)" % (model,))
    super().__init__(model, text_answers,
                     serving.exporter(ner_serving.server), batch_size)
    self.do_lower_case = model.preprocessor.do_lower_case

  def __call__(self, texts):
    return [answer["entities"]
            for answer in self._checked_answers(texts, None, "texts")]


def joined(words):
  """(text, spans): `words` joined by single spaces and each word's
  (start, end) in that text.

  >>> joined(["Ann", "Lee", "!"])
  ('Ann Lee !', [(0, 3), (4, 7), (8, 9)])
  """
  spans, start = [], 0
  for word in words:
    spans.append((start, start + len(word)))
    start += len(word) + 1
  return " ".join(words), spans


def text_answers(model, x, batch_size):
  """[{"words", "tags", "entities"}] of x (raw texts or word lists); a word
  list's entity spans are in its words joined by spaces."""
  if isinstance(x, (tf.Tensor, tf.RaggedTensor, tf.data.Dataset)):
    x = [t for t, _ in text_inputs.check_texts(x, pairs=False)]
  x = list(x)
  pre = model.preprocessor
  tags = model.predict(x, batch_size=batch_size, verbose=0)
  if x and not isinstance(x[0], str):  # Word lists (the model checked x).
    answers = []
    for w, t in zip(x, tags):
      text, spans = joined(list(w))
      answers.append({"words": list(w), "tags": t,
                      "entities": entities(text, w, t, spans=spans)})
    return answers
  words = pre.words(x) if x else []
  return [{"words": w, "tags": t,
           "entities": entities(text, w, t, pre.do_lower_case)}
          for text, w, t in zip(x, words, tags)]


def served_answers(texts, outputs, do_lower_case=True):
  """[{"words", "tags", "entities"}] of raw `texts` from the SavedModel's
  serving_default outputs for them, as `EntityTagger.predict` answers.
  do_lower_case: the export's assets.extra.do_lower_case."""
  answers = []
  for i, text in enumerate(texts):
    if isinstance(text, bytes):
      text = text.decode("utf-8")
    n = int(outputs["num_words"][i])
    words = [w.decode("utf-8") for w in _numpy(outputs["words"][i][:n])]
    tags = [t.decode("utf-8") for t in _numpy(outputs["tags"][i][:n])]
    answers.append({"words": words, "tags": tags, "entities": entities(
        text, words, tags, do_lower_case)})
  return answers


def _numpy(x):
  return x.numpy() if hasattr(x, "numpy") else x
