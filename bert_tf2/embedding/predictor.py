"""Sentence embeddings' answers for `bert_tf2.predict.text.TextPredictor`:
per text {"embedding": float32 [hidden_size]}."""


def text_answers(model, x, batch_size):
  """[{"embedding"}] of raw texts x (a `SentenceTextModel`)."""
  x = list(x)
  if not x:
    return []
  vectors = model.predict(x, batch_size=batch_size, verbose=0)
  return [{"embedding": v} for v in vectors]

