"""`ClassifierPredictor`: texts (or text pairs) -> labels and probabilities.

The task's text model (`text_model`: a `BertPreprocessor` in front of the
`BertClassifier`, as `bert_tf2.models.load` builds it) with batching: the
preprocessor makes run_classifier.py's inputs in graph (`[CLS] a [SEP]
(b [SEP])`, or `--long_text=sliding_window` windows), the model runs in
batches trimmed to their longest text (or as an int8 ONNX Runtime
session), the preprocessor's `merge_windows` averages each text's window
logits, and `answers_of_logits` (the answers of `text_answers`, i.e. of
`bert_tf2.models.load_predictor`) names them;
a multi-label model (`--label_column=a,b,c`) answers the labels its
model predicts (`BertClassifier.predicted`), as its eval_results.txt;
`export(dir)` writes the SavedModel of `bert_tf2.classifier.serving`
(signatures serving_default(text_a), serving_pair(text_a, text_b),
serving_ids(...)); it gives the same outputs as `predict`, long texts
included (with long_text="sliding_window" the SavedModel windows and
averages in graph).

Example:
  >>> p = ClassifierPredictor.from_output_dir("/tmp/mrpc_output")  # doctest: +SKIP
  >>> p.predict(["a gripping film", ("text a", "text b")])        # doctest: +SKIP
  [{'label': '1', 'probabilities': array([0.1, 0.9], dtype=float32)}, ...]
"""

import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.classifier import serving as classifier_serving
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.common import text_inputs
from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.common.text_model import TextModel
from bert_tf2.predict import base
from bert_tf2.predict import batching


class ClassifierPredictor(base.Predictor):
  """A fine-tuned classifier (or regressor) answering in Python.

  Args (besides `base.Predictor`'s):
    label_list: labels in output order ([None] for regression).
    long_text: "truncate" (the original) or "sliding_window".
    doc_stride: window stride for "sliding_window".
    multi_label: a multi-label model (`--label_column=a,b,c`): per-label
      sigmoid probabilities; a label is predicted as the model decides
      (`BertClassifier.predicted`).
    threshold: a multi-label model's (None: `BertClassifier.threshold`;
      `from_output_dir` passes the run's).
    trim_padding: run each batch at its longest text (rounded up to a
      multiple of 8) instead of max_seq_length: same outputs to float32
      round-off, faster on short texts.
    int8: run an int8 ONNX Runtime export of the model (dense weights int8,
      `bert_tf2.predict.int8`; needs the `int8` extra). Probabilities move
      by a few 0.01; see docs/performance.md for the accuracy cost. A path
      (str) loads that file, an earlier `export_onnx(path)`, instead of
      converting (minutes for a MiniLM-size model).
    int8_dir: where the int8 .onnx file is written (default: a temporary
      directory).
    precision: see `base.Predictor`; "int8" is `int8=True`.
  """

  precisions = base.Predictor.precisions + ("int8",)
  kind = "classifier"

  def __init__(self, bert_config_file, checkpoint, vocab_file, label_list,
               do_lower_case=True, max_seq_length=128, long_text="truncate",
               doc_stride=128, batch_size=32, multi_label=False,
               trim_padding=True, int8=False, int8_dir=None,
               precision=None, threshold=None, recorded_precision="float32"):
    self.label_list = list(label_list)
    self.regression = self.label_list == [None]
    self.multi_label = bool(multi_label)
    self.threshold = threshold
    if self.multi_label and long_text != "truncate":
      raise InputError("long_text=%s: multi-label models only truncate"
                       % long_text)
    if long_text not in ("truncate", "sliding_window"):
      raise InputError("long_text=%r: expected truncate or sliding_window"
                       % (long_text,))
    self.long_text = long_text
    self.doc_stride = int(doc_stride)
    super().__init__(bert_config_file, checkpoint, vocab_file, do_lower_case,
                     max_seq_length, batch_size,
                     base.int8_precision(precision, int8), recorded_precision)
    self.trim_padding = bool(trim_padding)
    self.int8 = self.precision == "int8"
    self.text_model = TextModel(
        BertPreprocessor(vocab_file, do_lower_case=do_lower_case,
                         max_seq_length=max_seq_length, long_text=long_text,
                         doc_stride=doc_stride), self.model)
    self._features = batching.features_function(self.text_model.preprocessor)
    self._logits = self._model_function(
        self._onnx_forward if self.int8 else self._forward,
        int8 or self.int8, int8_dir)

  def build_model(self,
                  attention_layout=modeling.attention.DEFAULT_ATTENTION_LAYOUT):
    return BertClassifier(self.bert_config, 1 if self.regression
                          else len(self.label_list),
                          attention_layout=attention_layout,
                          multi_label=self.multi_label,
                          threshold=self.threshold)

  def _forward(self, input_ids, input_mask, segment_ids, model=None):
    return (self.model if model is None else model)(
        {"input_ids": input_ids, "input_mask": input_mask,
         "segment_ids": segment_ids}, training=False)

  def _onnx_forward(self, input_ids, input_mask, segment_ids):
    return (self._forward(input_ids, input_mask, segment_ids,
                          model=self._onnx_model()),)

  def _run(self, x):
    """(features, logits) of x (`text_inputs.check_examples`): the text
    model's preprocessor, then the model in batches, window logits
    averaged per example (float32 [len(x), num_labels]); (None, empty
    logits) for no examples."""
    pairs = text_inputs.check_examples(x, "x")
    if not pairs:
      return None, np.zeros(
          [0, 1 if self.regression else len(self.label_list)], np.float32)
    features = self._features(pairs)
    logits = batching.run_batches(
        self._logits, [features[k] for k in batching.FEATURES],
        self.batch_size, trim_padding=self.trim_padding)
    if self.int8:
      logits = logits[0]
    merged = self.text_model.preprocessor.merge_windows(
        features, tf.constant(logits))
    return features, np.asarray(merged, np.float32)

  def predict_logits(self, x):
    """float32 logits [len(x), num_labels] (a text's windows averaged)."""
    return self._run(x)[1]

  def predict(self, x):
    """Predicts each text or (text_a, text_b) pair.

    Args:
      x: list of texts or (text_a, text_b) pairs, mixed, or the columns
        (texts_a, texts_b): the classifier's one input contract on every
        path (`common.text_inputs.check_examples`).

    Returns:
      list of dicts: {"label": str, "probabilities": float32 [num_labels]}
      or, for regression, {"prediction": float}, or, multi-label,
      {"labels": [str, ...], "probabilities": float32 [num_labels]}.

    Raises:
      InputError: `x` is not such a list (one line naming the item).
    """
    features, logits = self._run(x)
    if features is None:
      return []
    rows = answers_of_logits(self.model, self.label_list, logits, features)
    if self.regression:
      return [{"prediction": float(r["predictions"])} for r in rows]
    names = ("labels" if self.multi_label else "label", "probabilities")
    return [{k: r[k] for k in names} for r in rows]

  def export(self, export_dir):
    """Writes the serving SavedModel (raw-string signatures); returns it."""
    return serving.write_saved_model(classifier_serving.classifier_server(
        self.model, self.text_model.preprocessor, self.label_list),
                                     export_dir)


def text_answers(labels, model, x, batch_size):
  """A classifier text model's answers to texts or (text_a, text_b) pairs:
  the SavedModel's outputs (`serving.classifier_outputs`: the model's
  `head_outputs` and the label) per example, the predicted labels named
  (multi-label: "labels")."""
  logits = model.predict(x, batch_size=batch_size, verbose=0)
  return answers_of_logits(model.task, labels, logits)


def answers_of_logits(task, labels, logits, features=None):
  """The answers of `text_answers` from the logits [batch, num_labels] of
  classifier `task` (features: the preprocessor's, for num_windows)."""
  out = classifier_serving.classifier_outputs(task, labels)(
      features or {}, tf.constant(logits), None)
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


def text_export(labels, model, export_dir):
  """The classifier SavedModel of a text model (`serving`)."""
  return serving.write_saved_model(classifier_serving.classifier_server(
      model.task, model.preprocessor, labels), export_dir)
