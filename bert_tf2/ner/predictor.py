# coding=utf-8
"""`EntityTagger`: NER's Python predictor, raw texts -> words, tags and
entity spans (character offsets of the raw text).

`EntityTagger(model)` runs NER's text model (a `TokenTextModel`, e.g.
`bert_tf2.models.load(output_dir)`; `bert_tf2.models.load_predictor`
returns this) with `TextPredictor`'s batching; `EntityTagger(export_dir)`
gives the same answers from the SavedModel of `bert_tf2.ner.serving`:

  >>> tagger = EntityTagger(export_dir)                     # doctest: +SKIP
  >>> tagger(["江泽民在北京。"])                              # doctest: +SKIP
  [[{'type': 'PER', 'start': 0, 'end': 3, 'text': '江泽民'},
    {'type': 'LOC', 'start': 4, 'end': 6, 'text': '北京'}]]

Example (spans from words and tags):
  >>> entities("Hi, Ann Lee!", ["hi", ",", "ann", "lee", "!"],
  ...          ["O", "O", "B-PER", "I-PER", "O"])
  [{'type': 'PER', 'start': 4, 'end': 11, 'text': 'Ann Lee'}]
"""

import os
import unicodedata

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import text_inputs
from bert_tf2.common import serving
from bert_tf2.ner import schemes
from bert_tf2.ner.serving import ner_server
from bert_tf2.predict.text import TextPredictor
from modeling import literal_paths


def _normalized(char, do_lower_case):
  if do_lower_case:
    char = "".join(c for c in unicodedata.normalize("NFD", char.lower())
                   if unicodedata.category(c) != "Mn")
  return char


def align_words(text, words, do_lower_case=True):
  """Character spans [(start, end)] of `words` (BasicTokenizer output, so
  lower-cased and accent-stripped when do_lower_case) in raw `text`.

  A word that cannot be found (e.g. "[UNK]" for an over-long word) gets
  the span of the raw characters up to the next word's start.
  """
  norm, owner = [], []
  for i, char in enumerate(text):
    for c in _normalized(char, do_lower_case):
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
  """NER's Python predictor: raw texts -> words, tags and entity spans.

  `EntityTagger(model)` of NER's text model (a `TokenTextModel`, e.g.
  `bert_tf2.models.load(output_dir)`; `bert_tf2.models.load_predictor`
  returns this): `TextPredictor`'s batching, `predict(texts)` one
  {"words", "tags", "entities"} per text, `export(dir)` the SavedModel
  above. `EntityTagger(export_dir)` gives the same answers from an exported
  SavedModel (its serving_default; `export` refused). `tagger(texts)`: the
  entities alone, one list per text.
  """

  def __init__(self, model, batch_size=32):
    if isinstance(model, str):
      saved = _SavedTagger(model)
      super().__init__(saved.model, saved.answers, saved.refuse_export,
                       batch_size)
      self.serve, self.do_lower_case = saved.serve, saved.do_lower_case
    else:
      super().__init__(model, text_answers, text_export, batch_size)
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
  """[{"words", "tags", "entities"}] of x (a `TokenTextModel`'s input:
  raw texts, or word lists as it takes them): the words (BasicTokenizer's
  of a text; a word list's own), one tag per word (the run's CRF and
  transition constraints when it had them), the entity spans (`entities`;
  a word list's in its words joined by spaces)."""
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


def text_export(model, export_dir):
  """NER's raw-string SavedModel of a `TokenTextModel`."""
  return serving.write_saved_model(
      ner_server(model.task, model.preprocessor), export_dir)


class _SavedTagger(object):
  """`EntityTagger`'s model and answers from an exported SavedModel."""

  def __init__(self, export_dir):
    # An export_dir such as "ner[1]" is read literally, not as a pattern.
    self.model = literal_paths.load_saved_model(export_dir)
    self.serve = self.model.signatures["serving_default"]
    self.export_dir = export_dir
    flag = os.path.join(export_dir, "assets.extra.do_lower_case")
    self.do_lower_case = True
    if tf.io.gfile.exists(flag):
      with tf.io.gfile.GFile(flag) as f:
        self.do_lower_case = f.read().strip() == "True"

  def answers(self, model, x, batch_size):
    """As `text_answers`, from serving_default's words and tags."""
    del model  # self.serve's.
    x = list(x)
    if x and not isinstance(x[0], str):
      raise InputError("x[0]: a word list; the SavedModel %s takes raw "
                       "texts (word lists: bert_tf2.models.load_predictor "
                       "of the run's output_dir)" % self.export_dir)
    texts = [t for t, _ in text_inputs.check_texts(x, pairs=False)]
    result = []
    for begin in range(0, len(texts), batch_size):
      batch = texts[begin:begin + batch_size]
      out = self.serve(text=tf.constant(batch, tf.string))
      for i, text in enumerate(batch):
        n = int(out["num_words"][i])
        words = [w.decode("utf-8") for w in out["words"][i][:n].numpy()]
        tags = [t.decode("utf-8") for t in out["tags"][i][:n].numpy()]
        result.append({"words": words, "tags": tags, "entities": entities(
            text, words, tags, self.do_lower_case)})
    return result

  def refuse_export(self, model, export_dir):
    del model
    raise InputError("export_dir=%s: this EntityTagger runs the SavedModel "
                     "%s, already exported; copy that directory instead"
                     % (export_dir, self.export_dir))
