"""A quantized model's config: how `.keras` files of int8 models reload.

`model.quantize("int8")` (Keras' own) turns every `keras.layers.Dense` of
the model into int8 kernels with per-channel scales. A subclassed model
builds its layers in its constructor, from its own config, so a reloaded
model would get float layers that cannot take the saved int8 variables.
`with_mode(model, config)` records the mode in the model's config and
`build(cls, config)` rebuilds the model and quantizes it again before Keras
loads the saved (int8) variables over the fresh ones.

Example:
  >>> import modeling
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> m = modeling.BertModel(cfg)
  >>> mode_of(m) is None
  True
  >>> m.quantize("int8")
  >>> again = modeling.BertModel.from_config(m.get_config())
  >>> mode_of(again), again.pooler.kernel.dtype
  ('int8', 'int8')
"""

import warnings

import keras

from modeling import tf_internals

KEY = "quantization_mode"


def mode_of(model):
  """The quantization mode of the model's Dense layers (str) or None."""
  modes = {layer.quantization_mode
           for layer in tf_internals.flatten_layers(model)
           if isinstance(layer, keras.layers.Dense)}
  modes.discard(None)
  if len(modes) > 1:
    raise ValueError("mixed quantization modes %s" % sorted(modes))
  return modes.pop() if modes else None


def with_mode(model, config):
  """`config` plus the model's quantization mode, when it has one."""
  mode = mode_of(model)
  if mode:
    config[KEY] = mode
  return config


def build(cls, config):
  """`cls(**config)`, quantized as `with_mode` recorded."""
  config = dict(config)
  mode = config.pop(KEY, None)
  model = cls(**config)
  if mode:
    with warnings.catch_warnings():  # "Dropout has no quantize method".
      warnings.simplefilter("ignore", UserWarning)
      model.quantize(mode)
  return model
