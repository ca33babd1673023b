"""Sentence embeddings' answers for `bert_tf2.predict.text.TextPredictor`.

`bert_tf2.models.load_predictor(output_dir)` of a run_embedding.py
output_dir: `predict(texts)` gives per text {"embedding": float32
[hidden_size]} with the run's pooling, normalisation and max_seq_length;
`export(dir)` writes the SavedModel of `bert_tf2.embedding.serving`.
"""


def text_answers(model, x, batch_size):
  """[{"embedding"}] of raw texts x (a `SentenceTextModel`)."""
  x = list(x)
  if not x:
    return []
  vectors = model.predict(x, batch_size=batch_size, verbose=0)
  return [{"embedding": v} for v in vectors]

