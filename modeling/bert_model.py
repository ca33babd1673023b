"""`BertModel`: the BERT encoder as a Keras model, in two usage styles.

Keras style:
  >>> import tensorflow as tf
  >>> from modeling.config import BertConfig
  >>> cfg = BertConfig(vocab_size=50, hidden_size=12, num_hidden_layers=2,
  ...                  num_attention_heads=3, intermediate_size=20,
  ...                  max_position_embeddings=16, type_vocab_size=2)
  >>> model = BertModel(cfg)
  >>> out = model({"input_ids": tf.constant([[1, 2, 3]]),
  ...              "input_mask": tf.constant([[1, 1, 0]]),
  ...              "token_type_ids": tf.constant([[0, 0, 1]])})
  >>> out["pooled_output"].shape, len(out["encoder_outputs"])
  (TensorShape([1, 12]), 2)

Original style (google-research/bert's constructor and accessors):
  >>> m = BertModel(config=cfg, is_training=False,
  ...               input_ids=tf.constant([[1, 2, 3]]))
  >>> m.get_sequence_output().shape
  TensorShape([1, 3, 12])

Variables carry the original checkpoint names under `scope` ("bert" by
default); see `original_variables()` and `modeling.init_from_checkpoint`.
"""

import copy

import keras

from modeling import attention
from modeling.config import BertConfig
from modeling import embeddings
from modeling import export
from modeling import inputs as inputs_lib
from modeling import layers
from modeling import lora
from modeling import ops
from modeling import quantized
from modeling import transformer


@layers.serializable
class BertModel(export.Exportable, lora.Adaptable, keras.Model,
                layers.OriginalNamed):
  """BERT encoder: embeddings, transformer layers, tanh pooler on [CLS]."""

  def __init__(self, config, is_training=None, input_ids=None,
               input_mask=None, token_type_ids=None,
               use_one_hot_embeddings=False, scope=None, fused_qkv=False,
               attention_layout=attention.DEFAULT_ATTENTION_LAYOUT, **kwargs):
    """Builds the model (all variables are created here).

    Args:
      config: `BertConfig`.
      is_training: original style only: whether the accessors use dropout.
      input_ids: original style: int Tensor [batch_size, seq_length]; when
        given, the accessors (`get_pooled_output()`, ...) run the model on
        these inputs with its current weights (so they follow checkpoint
        loads). With is_training=True each
        accessor call draws its own dropout masks: for several outputs of
        one pass, call the model once instead.
      input_mask: original style: optional int Tensor [batch, seq]
        (default all ones).
      token_type_ids: original style: optional int Tensor [batch, seq]
        (default all zeros).
      use_one_hot_embeddings: look up word embeddings with a one-hot matmul
        (as the original does on TPU) instead of a gather.
      scope: name prefix of the variables in checkpoints (default "bert").
      fused_qkv: compute query/key/value with one matmul (same result;
        faster on some hardware, see bench/).
      attention_layout: "matmul" (default) or "einsum": how attention's
        products are computed, same result (see
        `modeling.attention.ATTENTION_LAYOUTS`: "matmul" runs faster here
        and exports to faster ONNX).
      **kwargs: keras.Model arguments (name, dtype, ...). `dtype` (a
        policy such as "mixed_bfloat16") reaches every sublayer: variables
        float32, computation in the policy's compute dtype.
    """
    kwargs.setdefault("name", "bert")
    super().__init__(**kwargs)
    if isinstance(config, dict):
      config = BertConfig.from_dict(config)
    config = copy.deepcopy(config)
    config.validate()
    self.config = config
    self.use_one_hot_embeddings = bool(use_one_hot_embeddings)
    self.original_scope = scope or "bert"
    self.fused_qkv = fused_qkv
    self.attention_layout = attention_layout
    self.embeddings = embeddings.Embeddings(
        config, use_one_hot_embeddings=use_one_hot_embeddings,
        name="embeddings", dtype=self.dtype_policy)
    self.encoder_layers = [
        transformer.TransformerLayer(
            hidden_size=config.hidden_size,
            num_attention_heads=config.num_attention_heads,
            intermediate_size=config.intermediate_size,
            hidden_act=config.hidden_act,
            hidden_dropout_prob=config.hidden_dropout_prob,
            attention_probs_dropout_prob=config.attention_probs_dropout_prob,
            initializer_range=config.initializer_range,
            fused_qkv=fused_qkv, attention_layout=attention_layout,
            name="layer_%d" % i,
            dtype=self.dtype_policy)
        for i in range(config.num_hidden_layers)]
    self.pooler = layers.Dense(
        config.hidden_size, input_width=config.hidden_size, activation="tanh",
        initializer_range=config.initializer_range, name="pooler_dense",
        dtype=self.dtype_policy)
    self.built = True
    self._original_inputs = None
    self._original_training = bool(is_training)
    if input_ids is not None:
      self._original_inputs = inputs_lib.standardize_inputs(
          input_ids, input_mask, token_type_ids)
      self._original_outputs()  # Fail early on bad inputs, as the original.

  def call(self, inputs, training=False, return_attention_probs=False,
           pooled_only=False):
    """Runs the encoder.

    Args:
      inputs: dict with "input_ids" (int [batch_size, seq_length]) and
        optional "input_mask" (1 = real token, default all ones) and
        "token_type_ids" (default all zeros; "segment_ids" also accepted);
        or a tuple (input_ids, input_mask, token_type_ids); or input_ids.
      training: bool, apply dropout.
      return_attention_probs: also return "attention_probs".
      pooled_only: return "pooled_output" alone (with the last layer's
        "attention_probs" over the [CLS] query only). The last layer then
        computes its output at [CLS] alone, the one position the pooler
        reads; the same numbers, with about (1 - 2/12) of one layer's
        matrix work saved (MiniLM's 6 layers: 14% of the encoder's).

    Returns:
      dict with
        "sequence_output": float [batch_size, seq_length, hidden_size],
        "pooled_output": float [batch_size, hidden_size],
        "encoder_outputs": list of num_hidden_layers float Tensors
          [batch_size, seq_length, hidden_size],
        "embedding_output": float [batch_size, seq_length, hidden_size],
        "word_embedding_output": float [batch_size, seq_length, hidden_size],
        and with return_attention_probs, "attention_probs": list of float32
          [batch_size, num_attention_heads, seq_length, seq_length].
    """
    input_ids, input_mask, token_type_ids = inputs_lib.standardize_inputs(inputs)
    embedding_output, word_output = self.embeddings(
        input_ids, token_type_ids, training=training)
    mask_adder = ops.attention_mask_adder(input_mask)
    x = embedding_output
    encoder_outputs, probs = [], []
    last = len(self.encoder_layers) - 1
    for i, layer in enumerate(self.encoder_layers):
      x, p = layer(x, mask_adder, training=training,
                   first_only=pooled_only and i == last)
      encoder_outputs.append(x)
      probs.append(p)
    pooled = self.pooler(x[:, 0, :])
    if pooled_only:
      out = {"pooled_output": pooled}
      if return_attention_probs:
        out["attention_probs"] = probs
      return out
    out = {
        "sequence_output": x,
        "pooled_output": pooled,
        "encoder_outputs": encoder_outputs,
        "embedding_output": embedding_output,
        "word_embedding_output": word_output,
    }
    if return_attention_probs:
      out["attention_probs"] = probs
    return out

  # --- Original-style accessors -------------------------------------------

  def _original_outputs(self):
    """This model's outputs on the constructor's inputs, current weights."""
    if self._original_inputs is None:
      raise ValueError(
          "the get_*() accessors need the original-style constructor, "
          "BertModel(config=..., is_training=..., input_ids=...); with "
          "BertModel(config) call the model on inputs instead")
    return self(self._original_inputs, training=self._original_training)

  def get_pooled_output(self):
    """float Tensor [batch_size, hidden_size]: tanh pooler on [CLS]."""
    return self._original_outputs()["pooled_output"]

  def get_sequence_output(self):
    """float Tensor [batch_size, seq_length, hidden_size]: last layer."""
    return self._original_outputs()["sequence_output"]

  def get_all_encoder_layers(self):
    """list of float Tensors [batch_size, seq_length, hidden_size]."""
    return self._original_outputs()["encoder_outputs"]

  def get_embedding_output(self):
    """float Tensor [batch_size, seq_length, hidden_size]: encoder input."""
    return self._original_outputs()["embedding_output"]

  def get_word_embedding_output(self):
    """float Tensor [batch_size, seq_length, hidden_size]: word lookup."""
    return self._original_outputs()["word_embedding_output"]

  def get_embedding_table(self):
    """The word embedding variable [vocab_size, hidden_size]."""
    return self.embeddings.word_embeddings

  # --- Names and serialisation --------------------------------------------

  def original_variables(self):
    out = layers.nest("embeddings", self.embeddings.original_variables())
    for i, layer in enumerate(self.encoder_layers):
      out.update(layers.nest("encoder/layer_%d" % i,
                             layer.original_variables()))
    out.update(layers.nest("pooler/dense", self.pooler.original_variables()))
    return out

  def get_config(self):
    return quantized.with_mode(self, {"config": self.config.to_dict(),
            "use_one_hot_embeddings": self.use_one_hot_embeddings,
            "scope": self.original_scope, "fused_qkv": self.fused_qkv,
            "attention_layout": self.attention_layout,
            "name": self.name, "trainable": self.trainable,
            "dtype": keras.dtype_policies.serialize(self.dtype_policy)})

  @classmethod
  def from_config(cls, config):
    return quantized.build(cls, config)
