"""`ClassifierPredictor`: texts (or text pairs) -> labels and probabilities.

`text_answers` runs the task's text model (`BertPreprocessor` and
`BertClassifier`) and names the SavedModel's outputs per example.
`bert_tf2.models.load_predictor(output_dir)` is a `TextPredictor` of these;
`ClassifierPredictor` is the same, built from a run's files. `export(dir)`
writes the SavedModel of `bert_tf2.classifier.serving`.

Example:
  >>> p = ClassifierPredictor.from_output_dir("/tmp/mrpc_output")  # doctest: +SKIP
  >>> p.predict(["a gripping film", ("text a", "text b")])        # doctest: +SKIP
  [{'label': '1', 'probabilities': array([0.1, 0.9], dtype=float32), ...}, ...]
"""

import functools

import tensorflow as tf

from bert_tf2.classifier import serving as classifier_serving
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.predict import text


class ClassifierPredictor(text.TextPredictor):
  """A fine-tuned classifier (or regressor) of a run's config, checkpoint
  and vocabulary.

  Args:
    bert_config_file, checkpoint, vocab_file: the run's files.
    label_list: labels in output order ([None] for regression).
    do_lower_case, max_seq_length, long_text, doc_stride: as in training.
    batch_size: examples per model call.
    multi_label: a multi-label model (`--label_column=a,b,c`): per-label
      sigmoid probabilities, labels `BertClassifier.predicted`.
    threshold: a multi-label model's (None: `BertClassifier.threshold`).
    trim_padding: run each batch at its longest text instead of
      max_seq_length (same outputs to float32 round-off).
    int8: True: precision "int8" (ONNX Runtime with int8 dense weights,
      `bert_tf2.predict.int8_task`; needs the `int8` extra); a path (str)
      loads that file, an earlier `export_onnx(path)`.
    int8_dir: where the int8 .onnx file is kept (default: temporary).
    precision: None (the recorded one), "float32", "bfloat16", "float16",
      "auto" or "int8" (`speed_defaults.resolve_inference_precision`).
    recorded_precision: the precision the run's answers were made in.
  """

  kind = "classifier"

  def __init__(self, bert_config_file, checkpoint, vocab_file, label_list,
               do_lower_case=True, max_seq_length=128, long_text="truncate",
               doc_stride=128, batch_size=32, multi_label=False,
               trim_padding=True, int8=False, int8_dir=None,
               precision=None, threshold=None, recorded_precision="float32"):
    self.label_list = list(label_list)
    self.regression = self.label_list == [None]
    self.multi_label = bool(multi_label)
    if self.multi_label and long_text != "truncate":
      raise InputError("long_text=%s: multi-label models only truncate"
                       % long_text)
    if long_text not in ("truncate", "sliding_window"):
      raise InputError("long_text=%r: expected truncate or sliding_window"
                       % (long_text,))
    preprocessor = BertPreprocessor(
        vocab_file, do_lower_case=do_lower_case,
        max_seq_length=max_seq_length, long_text=long_text,
        doc_stride=doc_stride)
    self.bert_config = text.checked_config(bert_config_file, preprocessor)
    num_labels = 1 if self.regression else len(self.label_list)
    model, self.precision = text.checkpoint_model(
        preprocessor, lambda: BertClassifier(
            self.bert_config, num_labels, multi_label=self.multi_label,
            threshold=threshold),
        checkpoint, type(self).__name__,
        text.int8_precision(precision, int8), recorded_precision,
        text.onnx_file_of(int8, int8_dir), trim_padding=trim_padding)
    self.trim_padding = bool(trim_padding)
    self.int8 = self.precision == "int8"
    super().__init__(model, functools.partial(text_answers, self.label_list),
                     serving.exporter(classifier_serving.server,
                                      labels=self.label_list),
                     batch_size)

  def predict_logits(self, x):
    """float32 logits [len(x), num_labels] (a text's windows averaged); x
    as `predict` takes it."""
    if not x:
      return tf.zeros([0, self.model.task.num_labels]).numpy()
    return self.model.predict(self.model.examples(x),
                              batch_size=self.batch_size, verbose=0)


def text_answers(labels, model, x, batch_size):
  """A classifier text model's answers to texts or (text_a, text_b) pairs:
  the SavedModel's outputs (`serving.classifier_outputs`) per example
  (multi-label: the predicted "labels" named)."""
  logits = model.predict(x, batch_size=batch_size, verbose=0)
  out = classifier_serving.classifier_outputs(model.task, labels)(
      {}, tf.constant(logits), None)
  out = {k: v.numpy() for k, v in out.items()}  # Then rows: NumPy views.
  rows = []
  for i in range(len(logits)):
    row = {k: v[i] for k, v in out.items()}
    if "label" in row:
      row["label"] = row["label"].decode("utf-8")
    if "predicted" in row:
      row["labels"] = [n for n, p in zip(labels, row.pop("predicted")) if p]
    rows.append(row)
  return rows
