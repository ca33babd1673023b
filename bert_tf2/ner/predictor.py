"""NER's answers for `bert_tf2.predict.text.TextPredictor`.

`bert_tf2.models.load_predictor(output_dir)` of a run_ner.py output_dir:
`predict(texts)` gives per text its words (BasicTokenizer's), one tag per
word (the run's CRF and transition constraints when it had them) and the
entity spans with character offsets (`serving.entities`, as
`EntityTagger`); `export(dir)` writes the SavedModel of `serving`.
"""

from bert_tf2.common import raw_text_serving
from bert_tf2.ner import serving


def text_answers(model, x, batch_size):
  """[{"words", "tags", "entities"}] of raw texts x (a `TokenTextModel`)."""
  texts = [t for t, _ in raw_text_serving.check_texts(x, pairs=False)]
  pre = model.preprocessor
  tags = model.predict(texts, batch_size=batch_size, verbose=0)
  words = pre.words(texts) if texts else []
  return [{"words": w, "tags": t,
           "entities": serving.entities(text, w, t, pre.do_lower_case)}
          for text, w, t in zip(texts, words, tags)]


def text_export(model, export_dir):
  """NER's raw-string SavedModel of a `TokenTextModel`."""
  return serving.write_saved_model(model.task, model.preprocessor,
                                   export_dir)
