# coding=utf-8
"""NER's raw-text SavedModel: a `common.serving.TextServer` of the task's
Keras preprocessor and model.

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
serving_default tags every word as run_ner.py --do_predict does;
max_words is the longest text's word count.
`bert_tf2.ner.predictor.served_answers` turns its outputs into character
spans of the raw text.
"""

import tensorflow as tf

from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving


def ner_server(model, preprocessor,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
  """The `TextServer` of a `BertTokenClassifier` and its `NerPreprocessor`,
  with assets.extra.do_lower_case (how `served_answers` aligns words)."""
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


def server(model, preprocessor, **unused_settings):
  """The task's server (`bert_tf2.common.serving.server`)."""
  return ner_server(model, preprocessor)


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


# An old import of the predictor's names gets one line naming the new home.
_MOVED = ("EntityTagger", "entities", "align_words")


def __getattr__(name):
  if name in _MOVED:
    raise ImportError("bert_tf2.ner.serving.%s is now in "
                         "bert_tf2.ner.predictor: from bert_tf2.ner.predictor "
                         "import %s" % (name, name))
  raise AttributeError("module %r has no attribute %r" % (__name__, name))
