"""`SentenceEncoder`: texts -> sentence vectors, pooled as the checkpoint
was trained (see `pooling.pooling_from_dir`).

`SentenceEncoder.from_dir(model_dir)` loads a Hugging Face /
sentence-transformers directory (converted with `modeling.hf_import`, exact
GELU), an original-format one, or a run_embedding.py output_dir (its
model.json). `encode(texts)` runs the encoder's `text_model()`: texts
tokenized in graph as one segment, [CLS] text [SEP], cut to max_seq_length.

Example (all-MiniLM-L6-v2 gives sentence-transformers' vectors):
  >>> enc = SentenceEncoder.from_dir(minilm_dir())          # doctest: +SKIP
  >>> enc.encode(["A man is eating food."]).shape           # doctest: +SKIP
  (1, 384)
"""

import json
import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

import modeling
import tokenization
from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.common import text_inputs
from bert_tf2.embedding import pooling
from bert_tf2.embedding import text_model as text_model_lib
from modeling import hf_import
from modeling import inputs as model_inputs
from modeling import lora
from modeling import quantized
from bert_tf2.runner import precision as precision_lib
from bert_tf2.runner import speed_defaults

# The precisions `SentenceEncoder.from_dir` offers.
PRECISIONS = ("auto", "float32", "bfloat16", "float16")

DEFAULT_MAX_SEQ_LENGTH = 128


@modeling.layers.serializable
class SentenceEncoder(lora.Adaptable, keras.Model):
  """BertModel + pooling (+ L2 normalisation); call(features) -> vectors."""

  def __init__(self, bert_config, pooling_mode="cls", normalize=False,
               **kwargs):
    kwargs.setdefault("name", "sentence_encoder")
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    if pooling_mode not in pooling.MODES:
      raise InputError("pooling mode %r: expected one of %s" %
                       (pooling_mode, ", ".join(pooling.MODES)))
    self.bert_config = bert_config
    self.pooling_mode = pooling_mode
    self.normalize = bool(normalize)
    self.bert = modeling.BertModel(bert_config, dtype=self.dtype_policy)
    self.tokenizer = None
    # The default, within the model's positions (from_dir sets and checks
    # the directory's).
    self.max_seq_length = min(DEFAULT_MAX_SEQ_LENGTH,
                              bert_config.max_position_embeddings)
    self.built = True

  def lora_parts(self):
    """LoRA in the encoder; the file holds the LoRA variables (no head)."""
    return self.bert, self

  def call(self, features, training=False):
    """int [batch, seq] input_ids/input_mask(/segment_ids) -> float32
    [batch, hidden_size] sentence vectors."""
    outputs = self.bert(model_inputs.encoder_inputs(features),
                        training=training)
    vectors = pooling.pool(outputs["sequence_output"], features["input_mask"],
                           self.pooling_mode, outputs["pooled_output"])
    vectors = tf.cast(vectors, tf.float32)
    return pooling.l2_normalize(vectors) if self.normalize else vectors

  def get_config(self):
    return quantized.with_mode(self, {
        "name": self.name, "trainable": self.trainable,
        "bert_config": self.bert_config.to_dict(),
        "pooling_mode": self.pooling_mode, "normalize": self.normalize})

  @classmethod
  def from_config(cls, config):
    return quantized.build(cls, config)

  # --- Raw texts: through the encoder's text model -----------------------

  def text_model(self):
    """The `SentenceTextModel` of this encoder (`text_model.wrap`), built
    again when tokenizer or max_seq_length change."""
    if self.tokenizer is None:
      raise ValueError("no tokenizer: build the encoder with from_dir() or "
                       "set .tokenizer")
    key = (id(self.tokenizer), self.max_seq_length)
    held = self.__dict__.get("_text_model_of")  # (key, text model)
    if held is None or held[0] != key:
      held = (key, text_model_lib.wrap(self))
      # Untracked: the text model holds this encoder, and a tracked
      # attribute would make each the other's layer.
      object.__setattr__(self, "_text_model_of", held)
    return held[1]

  def encode(self, texts, batch_size=32):
    """list of str -> float32 numpy [len(texts), hidden_size]."""
    texts = [t for t, _ in text_inputs.check_texts(texts, pairs=False)]
    if not texts:
      return np.zeros([0, self.bert_config.hidden_size], np.float32)
    return np.asarray(self.text_model().predict(
        texts, batch_size=batch_size, verbose=0), np.float32)

  @classmethod
  def from_dir(cls, model_dir, pooling_mode=None, normalize=None,
               max_seq_length=None, do_lower_case=None, precision=None):
    """The encoder of a model directory (see module docstring).

    Args:
      model_dir: HF/sentence-transformers or original-format directory,
        or a run_embedding.py output_dir (its model.json).
      pooling_mode, normalize: override what the directory says.
      max_seq_length: override (default: sentence_bert_config.json, else
        128).
      do_lower_case: override (default: tokenizer_config.json, else True).
      precision: None (model.json's; float32 for a pretrained directory)
        or one of PRECISIONS (`bert_tf2.runner.speed_defaults`).
    """
    if not os.path.isdir(model_dir):
      raise InputError("%s: not a directory" % model_dir)
    found = artifact.read(model_dir) if artifact.exists(model_dir) else None
    chosen = speed_defaults.resolve_inference_precision(
        precision, cls.__name__, offered=PRECISIONS,
        recorded=found.precision if found else artifact.DEFAULT_PRECISION)
    with precision_lib.policy_scope(chosen):
      if found is not None:
        return _from_run(cls, found, pooling_mode, normalize,
                         max_seq_length, do_lower_case)
      return _from_directory(cls, model_dir, pooling_mode, normalize,
                             max_seq_length, do_lower_case)


def _from_directory(cls, model_dir, pooling_mode, normalize, max_seq_length,
                    do_lower_case):
  """SentenceEncoder.from_dir of a pretrained directory."""
  vocab = os.path.join(model_dir, "vocab.txt")
  if not os.path.exists(vocab):
    raise InputError("%s: no vocab.txt" % model_dir)
  config_pooling = pooling.pooling_from_dir(model_dir)
  st_config = _optional_json(os.path.join(model_dir,
                                          "sentence_bert_config.json"))
  tok_config = _optional_json(os.path.join(model_dir,
                                           "tokenizer_config.json"))
  if do_lower_case is None:
    do_lower_case = tok_config.get("do_lower_case", True)
  head = (pooling_mode or config_pooling.mode,
          config_pooling.normalize if normalize is None else normalize)
  if os.path.exists(os.path.join(model_dir, "model.safetensors")):
    with tempfile.TemporaryDirectory() as tmp:
      bert_config, _ = hf_import.convert_hf_checkpoint(model_dir, tmp,
                                                       exact_gelu=True)
      encoder = cls(bert_config, *head)
      modeling.init_from_checkpoint(encoder.bert, tmp, flag=model_dir)
  else:
    config_file = os.path.join(model_dir, "bert_config.json")
    bert_config = modeling.BertConfig.from_json_file(config_file)
    modeling.check_config_matches_checkpoint(
        bert_config, model_dir, flag=model_dir, config_file=config_file)
    encoder = cls(bert_config, *head)
    modeling.init_from_checkpoint(encoder.bert, model_dir, flag=model_dir)
  return _with_tokenizer(encoder, vocab, do_lower_case, max_seq_length or
                         st_config.get("max_seq_length",
                                       DEFAULT_MAX_SEQ_LENGTH))


def _from_run(cls, found, pooling_mode, normalize, max_seq_length,
              do_lower_case):
  """SentenceEncoder.from_dir of a run_embedding.py output_dir (`found`,
  its `artifact.Artifact`); each argument given overrides model.json."""
  model_dir = found.directory
  if found.task != "embedding":
    raise InputError("%s: holds a %r model, not a sentence encoder"
                     % (model_dir, found.task))
  head, pre = found.model, found.preprocessor
  bert_config = modeling.BertConfig.from_json_file(found.config_file)
  encoder = cls(bert_config, pooling_mode or head.get("pooling_mode", "cls"),
                head.get("normalize", False) if normalize is None
                else normalize)
  checkpoint = found.checkpoint or model_dir
  modeling.init_from_checkpoint(encoder.bert, checkpoint, flag=model_dir)
  return _with_tokenizer(
      encoder, found.vocab_file, pre.get("do_lower_case", True)
      if do_lower_case is None else do_lower_case,
      max_seq_length or pre.get("max_seq_length", DEFAULT_MAX_SEQ_LENGTH))


def _with_tokenizer(encoder, vocab, do_lower_case, max_seq_length):
  """`encoder` with its tokenizer and max_seq_length."""
  encoder.tokenizer = tokenization.FullTokenizer(
      vocab, do_lower_case=do_lower_case)
  encoder.max_seq_length = int(max_seq_length)
  modeling.check_sequence_length(encoder.bert_config, encoder.max_seq_length)
  return encoder


def _optional_json(path):
  if not os.path.exists(path):
    return {}
  with open(path, encoding="utf-8") as f:
    try:
      return json.load(f)
    except ValueError as e:
      raise InputError("%s: not valid JSON: %s" % (path, e)) from None

