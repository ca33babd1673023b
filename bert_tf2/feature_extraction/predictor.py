"""`FeatureEncoder`: texts -> token vectors or pooled sentence vectors.

The feature-extraction task's Python predictor (on the generic
`bert_tf2.predict.base.Predictor`): its `BertPreprocessor` (the one of its
SavedModel) makes extract_features.py's inputs in graph ([CLS] a [SEP]
(b [SEP]), a pair truncated longest-first, as `convert_example`), the
encoder runs in batches trimmed to their longest text (or as an int8 ONNX
Runtime session); the vectors are the encoder layers chosen by `layers`
(Python-style indexes, -1 = last layer).

  encode(texts)            -> per text {"tokens": [...], "token_vectors":
                              float32 [num_tokens, len(layers), hidden]}
                              (real tokens only, as extract_features.py)
  sentence_vectors(texts, pooling="mean" | "cls")
                           -> float32 [len(texts), len(layers), hidden]
                              ("mean" over real tokens, [CLS] and [SEP]
                              included, as --pooling=mean)

`export(dir)` writes a SavedModel with serving_default(text) and
serving_pair(text_a, text_b) -> token_vectors [batch, max_seq_length,
len(layers), hidden], input_mask [batch, max_seq_length], mean_vectors and
cls_vectors [batch, len(layers), hidden]: the same numbers as the Python API.

Example:
  >>> enc = FeatureEncoder("bert_config.json", "bert_model.ckpt",
  ...                      "vocab.txt", layers=(-1,))        # doctest: +SKIP
  >>> enc.sentence_vectors(["a text", "another"]).shape      # doctest: +SKIP
  (2, 1, 768)
"""

import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.common import text_inputs
from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.feature_extraction.extractor import parse_layers
from bert_tf2.feature_extraction import serving as feature_serving
from bert_tf2.feature_extraction.serving import pool
from bert_tf2.predict import base
from bert_tf2.predict import batching

POOLINGS = ("mean", "cls")
OUTPUTS = ("token_vectors", "mean_vectors", "cls_vectors")


class FeatureEncoder(base.Predictor):
  """A BERT encoder turning texts into vectors (see module docstring).

  Args (besides `base.Predictor`'s):
    layers: encoder layer indexes (-1 = last).
    trim_padding: run each batch at its longest text (multiple of 8): the
      same vectors to float32 round-off.
    int8: run an int8 ONNX Runtime export (`bert_tf2.predict.int8`; needs
      the `int8` extra); a path (str) loads an earlier `export_onnx(path)`.
    int8_dir: where the int8 .onnx file is written (default: temporary).
    precision: see `base.Predictor`; "int8" is `int8=True`.
  """

  precisions = base.Predictor.precisions + ("int8",)
  kind = "features"

  def __init__(self, bert_config_file, checkpoint, vocab_file,
               do_lower_case=True, max_seq_length=128, layers=(-1,),
               batch_size=32, trim_padding=True, int8=False, int8_dir=None,
               precision=None, recorded_precision="float32"):
    self._layer_spec = ",".join(str(i) for i in layers)
    super().__init__(bert_config_file, checkpoint, vocab_file, do_lower_case,
                     max_seq_length, batch_size,
                     base.int8_precision(precision, int8), recorded_precision)
    self.layers = parse_layers(self._layer_spec,
                               self.bert_config.num_hidden_layers, "layers")
    self.trim_padding = bool(trim_padding)
    self.int8 = self.precision == "int8"
    self.preprocessor = BertPreprocessor(vocab_file,
                                         do_lower_case=do_lower_case,
                                         max_seq_length=max_seq_length)
    self._features = batching.features_function(self.preprocessor)
    self._vectors = self._model_function(
        self._onnx_forward if self.int8 else self._outputs,
        int8 or self.int8, int8_dir)

  def build_model(self,
                  attention_layout=modeling.attention.DEFAULT_ATTENTION_LAYOUT):
    return modeling.BertModel(self.bert_config,
                              attention_layout=attention_layout)

  def _forward(self, input_ids, input_mask, segment_ids, model=None):
    out = (self.model if model is None else model)(
        {"input_ids": input_ids, "input_mask": input_mask,
         "token_type_ids": segment_ids}, training=False)
    # float32 vectors (and pooling) whatever the model's precision.
    return pool({"token_vectors": tf.stack(
        [tf.cast(out["encoder_outputs"][i], tf.float32)
         for i in self.layers], axis=2),
                 "input_mask": input_mask})

  def _outputs(self, input_ids, input_mask, segment_ids, model=None):
    out = self._forward(input_ids, input_mask, segment_ids, model=model)
    return tuple(out[k] for k in OUTPUTS)

  def _onnx_forward(self, input_ids, input_mask, segment_ids):
    return self._outputs(input_ids, input_mask, segment_ids,
                         model=self._onnx_model())

  def _run(self, texts):
    """(features, (token_vectors, mean_vectors, cls_vectors)) of texts
    (NumPy, one row per text); (None, None) for no texts."""
    pairs = text_inputs.check_texts(texts)
    if not pairs:
      return None, None
    features = self._features(pairs)
    return features, batching.run_batches(
        self._vectors, [features[k] for k in batching.FEATURES],
        self.batch_size, trim_padding=self.trim_padding,
        sequence_outputs=(0,))

  def encode(self, texts):
    """Token vectors of each text or (text_a, text_b) pair (see module doc)."""
    features, outputs = self._run(texts)
    if features is None:
      return []
    vocabulary = self.preprocessor.vocabulary
    rows = []
    for ids, mask, vectors in zip(features["input_ids"],
                                  features["input_mask"], outputs[0]):
      length = int(mask.sum())
      rows.append({"tokens": [vocabulary[i] for i in ids[:length]],
                   "token_vectors": vectors[:length]})
    return rows

  def sentence_vectors(self, texts, pooling="mean"):
    """float32 [len(texts), len(layers), hidden] pooled vectors."""
    if pooling not in POOLINGS:
      raise ValueError("pooling=%r: expected one of %s" % (pooling,
                                                            POOLINGS))
    features, outputs = self._run(texts)
    if features is None:
      return np.zeros([0, len(self.layers), self.bert_config.hidden_size],
                      np.float32)
    return outputs[1] if pooling == "mean" else outputs[2]

  def export(self, export_dir):
    """Writes the serving SavedModel (see module docstring); returns it."""
    return serving.write_saved_model(feature_serving.feature_server(self),
                                     export_dir)
