"""`FeatureEncoder`: texts -> token vectors or pooled sentence vectors.

The feature-extraction task's Python predictor: a `TextPredictor` of its
`FeatureTextModel` (extract_features.py's inputs made in graph, then the
encoder layers chosen by `layers`); `export(dir)` writes its SavedModel
(`serving.feature_server`).

Example:
  >>> enc = FeatureEncoder("bert_config.json", "bert_model.ckpt",
  ...                      "vocab.txt", layers=(-1,))        # doctest: +SKIP
  >>> enc.sentence_vectors(["a text", "another"]).shape      # doctest: +SKIP
  (2, 1, 768)
"""

import numpy as np
import tensorflow as tf

from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.feature_extraction import serving as feature_serving
from bert_tf2.feature_extraction.extractor import parse_layers
from bert_tf2.feature_extraction.text_model import EncoderLayers
from bert_tf2.feature_extraction.text_model import FeatureTextModel
from bert_tf2.predict import text

POOLINGS = ("mean", "cls")


class FeatureEncoder(text.TextPredictor):
  """A BERT encoder turning texts into vectors (see module docstring).

  Args:
    bert_config_file, checkpoint, vocab_file: the encoder's files.
    do_lower_case, max_seq_length: as extract_features.py's flags.
    layers: encoder layer indexes (-1 = last).
    batch_size: texts per model call.
    trim_padding: run each batch at its longest text.
    int8: True: precision "int8" (`bert_tf2.predict.int8_task`); a path
      (str) loads an earlier `export_onnx(path)`.
    int8_dir: where the int8 .onnx file is kept (default: temporary).
    precision: None (the recorded one), "float32", "bfloat16", "float16",
      "auto" or "int8".
    recorded_precision: the precision the vectors were recorded in.
  """

  kind = "features"

  def __init__(self, bert_config_file, checkpoint, vocab_file,
               do_lower_case=True, max_seq_length=128, layers=(-1,),
               batch_size=32, trim_padding=True, int8=False, int8_dir=None,
               precision=None, recorded_precision="float32"):
    self.preprocessor = BertPreprocessor(vocab_file,
                                         do_lower_case=do_lower_case,
                                         max_seq_length=max_seq_length)
    self.bert_config = text.checked_config(bert_config_file,
                                           self.preprocessor)
    self.layers = parse_layers(",".join(str(i) for i in layers),
                               self.bert_config.num_hidden_layers, "layers")
    model, self.precision = text.checkpoint_model(
        self.preprocessor, lambda: EncoderLayers(self.bert_config,
                                                 self.layers),
        checkpoint, type(self).__name__,
        text.int8_precision(precision, int8), recorded_precision,
        text.onnx_file_of(int8, int8_dir), text_model=FeatureTextModel,
        trim_padding=trim_padding)
    self.trim_padding = bool(trim_padding)
    self.int8 = self.precision == "int8"
    super().__init__(model, _outputs, _export, batch_size)

  def encode(self, texts):
    """Per text or (text_a, text_b) pair: {"tokens": [...],
    "token_vectors": float32 [num_tokens, len(layers), hidden]}, real
    tokens only (as extract_features.py)."""
    outputs = self._checked_answers(texts, None, "texts")
    if not outputs:
      return []
    rows = self.model.examples(texts, "texts")  # Texts, or pair columns.
    rows = (tuple(tf.constant(c) for c in rows) if isinstance(rows, tuple)
            else tf.constant(rows))
    ids = self.preprocessor(rows)["input_ids"].numpy()
    vocabulary = self.preprocessor.vocabulary
    result = []
    for row, out in zip(ids, outputs):
      length = int(out["input_mask"].sum())
      result.append({"tokens": [vocabulary[i] for i in row[:length]],
                     "token_vectors": out["token_vectors"][:length]})
    return result

  def sentence_vectors(self, texts, pooling="mean"):
    """float32 [len(texts), len(layers), hidden]: "mean" over the real
    tokens ([CLS] and [SEP] included, as --pooling=mean) or "cls"."""
    if pooling not in POOLINGS:
      raise ValueError("pooling=%r: expected one of %s" % (pooling,
                                                            POOLINGS))
    outputs = self._checked_answers(texts, None, "texts")
    if not outputs:
      return np.zeros([0, len(self.layers), self.bert_config.hidden_size],
                      np.float32)
    return np.stack([o[pooling + "_vectors"] for o in outputs])


def _outputs(model, x, batch_size):
  """One dict of the text model's outputs per example of x."""
  out = model.predict(x, batch_size=batch_size, verbose=0)
  return [{k: v[i] for k, v in out.items()}
          for i in range(len(out["mean_vectors"]))]


def _export(model, export_dir):
  """The features SavedModel of text model `model`."""
  return serving.write_saved_model(
      feature_serving.feature_server(model), export_dir)
