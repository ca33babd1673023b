# coding=utf-8
"""NER serving: the raw-text SavedModel (a `common.serving.TextServer`) and
its client, text -> entity spans.

Signatures (batch dimension free):
  serving_default  text: tf.string [batch] -> words, tags: tf.string
                   [batch, max_words] ("" pads), num_words: int32 [batch]
  serving_ids      input_ids, input_mask, segment_ids: int32 [batch, seq]
                   -> label_ids int32 [batch, seq], probabilities
With a CRF head (run_ner.py --crf) both signatures decode the Viterbi
path in the graph: serving_default over the words' first pieces;
serving_ids over the pieces whose vocabulary entry does not start with
"##" (the first pieces of BasicTokenizer words; [CLS], [SEP] and padding
excluded); "probabilities" stay the per-piece softmax of the emissions.
The raw-text signature is the task's Keras preprocessor and model
(`NerPreprocessor`, `BertTokenClassifier`) in a `TextServer`: it splits words in graph as
BasicTokenizer does (CJK characters are single words), cuts long texts into
run_ner.py's windows (`doc_stride`), and tags every word by its first word
piece in its home window (max context), so it tags every word as
run_ner.py --do_predict does; max_words is the longest text's word count.
`entities(text, words, tags)` turns its output into character spans of
the raw text; `EntityTagger` (NER's Python predictor, on the text model or
on an exported SavedModel) does both:

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
from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving
from bert_tf2.ner import schemes
from bert_tf2.predict.text import TextPredictor
from modeling import literal_paths


def ner_server(model, preprocessor,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
  """The `common.serving.TextServer` of a `BertTokenClassifier` and its
  `NerPreprocessor` (tags in `labels`): the signatures above, with
  assets.extra.do_lower_case (how `EntityTagger` aligns words); the model
  sees full windows (the tags are read at piece positions)."""
  labels = tf.constant(preprocessor.labels)

  def text_outputs(features, logits, text):
    label_ids = model.decode(features, logits)
    word_labels = preprocessor.word_values(features, label_ids)
    tags = tf.where(features["word_positions"] > 0,
                    tf.gather(labels, word_labels), "")
    words = preprocessor.tokenizer.split_words(text)
    return {"words": words.to_tensor(""), "tags": tags,
            "num_words": tf.cast(words.row_lengths(), tf.int32)}
  return serving.TextServer(
      preprocessor, model, text_outputs,
      signatures={"serving_default": ("text",), "serving_ids": serving.IDS},
      ids_outputs=ids_outputs(model, preprocessor), chunk_size=chunk_size,
      trim_padding=False, extra_files={
          "assets.extra.do_lower_case": "%s\n" % bool(
              preprocessor.do_lower_case)}, name="ner_server")


def ids_outputs(model, preprocessor):
  """serving_ids' answers: label_ids [batch, seq] (the CRF decoded over the
  pieces that start a word) and the per-piece probabilities."""
  # Vocabulary id -> whether it can start a word (not "##...").
  word_start = ~tf.strings.regex_full_match(
      tf.constant(preprocessor.vocabulary), "##.*")
  tokenizer = preprocessor.tokenizer

  def outputs(features, logits, texts):
    del texts
    input_ids, input_mask = features["input_ids"], features["input_mask"]
    starts = tf.gather(word_start, tf.clip_by_value(
        input_ids, 0, tf.shape(word_start)[0] - 1))
    special = (input_ids == tokenizer.cls_id) | (input_ids == tokenizer.sep_id)
    label_mask = tf.cast(starts & ~special & (input_mask > 0), tf.int32)
    decoded = model.decode({"input_mask": input_mask,
                            "label_mask": label_mask}, logits)
    return {"label_ids": decoded,
            "probabilities": tf.nn.softmax(logits, axis=-1)}
  return outputs


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


def entities(text, words, tags, do_lower_case=True):
  """Entity dicts {type, start, end, text} (character offsets in `text`)."""
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
    return [answer["entities"] for answer in self.predict(texts)]


def text_answers(model, x, batch_size):
  """[{"words", "tags", "entities"}] of raw texts x (a `TokenTextModel`):
  BasicTokenizer's words, one tag per word (the run's CRF and transition
  constraints when it had them), the entity spans (`entities`)."""
  texts = [t for t, _ in raw_text_serving.check_texts(x, pairs=False)]
  pre = model.preprocessor
  tags = model.predict(texts, batch_size=batch_size, verbose=0)
  words = pre.words(texts) if texts else []
  return [{"words": w, "tags": t,
           "entities": entities(text, w, t, pre.do_lower_case)}
          for text, w, t in zip(texts, words, tags)]


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
    texts = [t for t, _ in raw_text_serving.check_texts(x, pairs=False)]
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
