"""Beam's RunInference over a task's raw-string SavedModel (any task).

Every task's SavedModel (bert_tf2/common/serving.py) takes raw strings and
answers with the task's outputs. An element is a str (for a signature of
one input) or a dict holding the signature's input names; its inference is
{output name: JSON value} (bert_tf2.beam.answers.rows).

Example (in a pipeline):
  >>> import apache_beam as beam  # doctest: +SKIP
  >>> from apache_beam.ml.inference.base import RunInference  # doctest: +SKIP
  >>> with beam.Pipeline() as p:  # doctest: +SKIP
  ...   _ = (p | beam.Create([{"text_a": "a fine film"}])
  ...        | RunInference(RawTextModelHandler("clf_export"))
  ...        | beam.Map(lambda r: print(r.inference["label"])))
"""

from apache_beam.ml.inference import base

from bert_tf2.beam import answers as answers_lib
from bert_tf2.common import InputError


def batch_inputs(batch, names, signature="serving_default"):
  """Elements -> {input name: list of str} for one call of the signature.

  Example:
    >>> batch_inputs(["a", "b"], ["text_a"])
    {'text_a': ['a', 'b']}
    >>> batch_inputs([{"text": "x", "id": 3}], ["text"])
    {'text': ['x']}
  """
  columns = {name: [] for name in names}
  for element in batch:
    if isinstance(element, str):
      if len(names) != 1:
        raise InputError("signature %s reads %s: a plain text line gives only "
                         "one (use JSONL records with those keys)"
                         % (signature, ", ".join(names)))
      columns[names[0]].append(element)
      continue
    for name in names:
      value = element.get(name) if isinstance(element, dict) else None
      if not isinstance(value, str):
        raise InputError("input %.80r: lacks the text %r (signature %s reads "
                         "%s)" % (element, name, signature, ", ".join(names)))
      columns[name].append(value)
  return columns


class RawTextModelHandler(base.ModelHandler):
  """RunInference's handler for a raw-string SavedModel.

  Args:
    export_dir: the SavedModel directory (any path TensorFlow reads).
    signature: the signature to call (default serving_default; e.g. the
      classifier's serving_pair for sentence pairs).
    max_batch_size: most inputs per call.
  """

  def __init__(self, export_dir, signature="serving_default",
               max_batch_size=32):
    super().__init__(min_batch_size=1, max_batch_size=max_batch_size)
    self._export_dir = export_dir
    self._signature = signature

  def load_model(self):
    # In the worker: tensorflow_text registers the graph's tokenizing ops.
    import tensorflow_text  # pylint: disable=g-import-not-at-top,unused-import
    from bert_tf2.common import saved_model  # pylint: disable=g-import-not-at-top
    loaded = saved_model.load_saved_model(self._export_dir)
    if self._signature not in loaded.signatures:
      raise InputError("%s: no signature %r (it has %s)" % (
          self._export_dir, self._signature, ", ".join(loaded.signatures)))
    return loaded

  def run_inference(self, batch, model, inference_args=None):
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    function = model.signatures[self._signature]
    columns = batch_inputs(batch, list(function.structured_input_signature[1]),
                           self._signature)
    outputs = function(**{name: tf.constant(values, tf.string)
                          for name, values in columns.items()})
    answers = answers_lib.rows({name: value.numpy()
                                for name, value in outputs.items()})
    return [base.PredictionResult(element, answer, self._export_dir)
            for element, answer in zip(batch, answers)]

  def get_metrics_namespace(self):
    return "RawTextModelHandler"
