"""`TextPredictor`: a task's raw-string Keras model, batched, named answers.

`bert_tf2.models.load_predictor(output_dir)` returns one: the text model
of `bert_tf2.models.load(output_dir)` plus

* `predict(x, batch_size=None)`: one dict of named answers per example
  (the task's: a classifier's "label" and "probabilities", NER's "words",
  "tags" and "entities", ...), computed by the task's own answer
  function from the text model's outputs; x read by the text model's
  `examples` (the task's one input contract, the same as its `predict`
  takes), run by the text model's `predict` (shortest first where the
  task trims padding: see `TextModel.sort_by_length`; the answers in
  input order);
* `export(export_dir)`: the task's raw-string SavedModel of the same
  model and settings (`<task>/serving.py`);
* `model`: the Keras model itself (fit, evaluate, save, ...).

A task supplies the two functions (`answers(model, x, batch_size)` and
`export(model, export_dir)`) in its predictor module; this class is
generic and imports no task.

Example:
  >>> p = TextPredictor(None, lambda m, x, n: [{"n": len(t)} for t in x],
  ...                   lambda m, d: d)
  >>> p.predict(["ab", "c"])
  [{'n': 2}, {'n': 1}]
  >>> p.predict([])
  []
"""

import tensorflow as tf

from bert_tf2.common import text_inputs


class TextPredictor(object):
  """A task's text model with batching and named answers (see module)."""

  def __init__(self, model, answers, export, batch_size=32):
    """Args: model: the task's raw-string Keras model; answers: fn(model,
    x, batch_size) -> list of dicts, one per example, through the model's
    `predict` (which orders the batches); export: fn(model, export_dir) ->
    export_dir; batch_size: examples per model call."""
    self.model = model
    self._answers = answers
    self._export = export
    self.batch_size = int(batch_size)

  def predict(self, x, batch_size=None):
    """One dict of named answers per example of x (the task's inputs; []
    for an empty batch; bad items: one InputError line naming the item,
    the same as the text model's `predict` gives: its `examples`, else
    `text_inputs.check_nested_texts`)."""
    return self._checked_answers(x, batch_size, "x")

  def _checked_answers(self, x, batch_size, what):
    """`predict`, a bad item named as `what`[i] (the caller's argument)."""
    if text_inputs.is_empty(x):
      return []
    examples = getattr(self.model, "examples", None)  # The task's contract.
    if examples is not None:
      x = examples(x, what)
    elif not isinstance(x, (tf.data.Dataset, tf.Tensor)):
      x = text_inputs.check_nested_texts(x, what=what)
    return self._answers(self.model, x, int(batch_size or self.batch_size))

  def export(self, export_dir):
    """Writes the task's raw-string SavedModel atomically; returns it."""
    return self._export(self.model, export_dir)
