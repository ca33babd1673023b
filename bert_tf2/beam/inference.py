"""Beam's RunInference over a task's raw-string SavedModel (any task).

Every task exports the same kind of SavedModel (bert_tf2/common/serving.py,
`models.load_predictor(output_dir).export(export_dir)`, run_classifier's and
run_ner's --export_dir): a signature of raw strings in (`text_a`, or
`text_a` + `text_b`, or `text`, ...), the task's answers out, tokenizing
in the graph. `RawTextModelHandler` lets RunInference load it once per
worker process and answer batches of inputs:

  element     a str (for a signature of one input), or a dict holding the
              signature's input names (other keys are left alone)
  inference   the answer for it: {output name: JSON value}
              (bert_tf2.beam.answers.rows: e.g. label + probabilities +
              logits for the classifier, words + tags for NER)

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


def signature_inputs(function):
  """The input names of a loaded signature, in its order."""
  return list(function.structured_input_signature[1])


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
    max_batch_size: most inputs per call (Beam's BatchElements makes the
      batches; the model itself runs them in its chunks).
  """

  def __init__(self, export_dir, signature="serving_default",
               max_batch_size=32):
    super().__init__(min_batch_size=1, max_batch_size=max_batch_size)
    self._export_dir = export_dir
    self._signature = signature

  def load_model(self):
    # tensorflow_text registers the ops the graph tokenizes with
    # (NormalizeUTF8, RegexSplit, ...); TensorFlow itself is imported here, in
    # the worker, not when a pipeline is built.
    import tensorflow_text  # pylint: disable=g-import-not-at-top,unused-import
    # Beam worker: saved_model loads TensorFlow, imported on the worker only.
    from bert_tf2.common import saved_model  # pylint: disable=g-import-not-at-top
    loaded = saved_model.load_saved_model(self._export_dir)
    if self._signature not in loaded.signatures:
      raise InputError("%s: no signature %r (it has %s)" % (
          self._export_dir, self._signature, ", ".join(loaded.signatures)))
    return loaded

  def run_inference(self, batch, model, inference_args=None):
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    function = model.signatures[self._signature]
    columns = batch_inputs(batch, signature_inputs(function), self._signature)
    outputs = function(**{name: tf.constant(values, tf.string)
                          for name, values in columns.items()})
    answers = answers_lib.rows({name: value.numpy()
                                for name, value in outputs.items()})
    return [base.PredictionResult(element, answer, self._export_dir)
            for element, answer in zip(batch, answers)]

  def get_metrics_namespace(self):
    return "RawTextModelHandler"
