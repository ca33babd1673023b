"""LoRA on BERT: Keras' own `Dense.enable_lora`, plus names and a file.

`enable_lora(model, rank)` freezes every variable of `model` (a `BertModel`)
and turns on Keras' LoRA (`keras.layers.Dense.enable_lora`) in the
attention's "query" and "value" projections, as keras-hub's
`Backbone.enable_lora` does; a task model's head stays trainable.

The LoRA variables are named after their layer's original kernel:
"bert/encoder/layer_0/attention/self/query/lora_kernel_a" and
".../lora_kernel_b" (`modeling.checkpoint.lora_variable_names`, beside
the other original names). `save_lora_weights` writes them, with the
model's other trainable variables (a task model's head), to a small .npz
file; `load_lora_weights` puts them onto a fresh model loaded from the base
checkpoint. `Adaptable` gives a model these three as methods (`BertModel`,
the task models and the raw-string `TextModel`).

Example:
  >>> import modeling
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
  >>> m = modeling.BertModel(cfg)
  >>> enable_lora(m, rank=2)
  >>> from modeling import checkpoint
  >>> sorted(checkpoint.lora_variable_names(m))[0]
  'bert/encoder/layer_0/attention/self/query/lora_kernel_a'
  >>> len(m.trainable_weights)
  4
"""

import os
import tempfile

import numpy as np

from modeling import checkpoint
from modeling import layers

DEFAULT_TARGETS = ("query", "value")


def _dense_layers(model):
  return [l for l in layers.iter_layers(model)
          if isinstance(l, layers.Dense)]


def enable_lora(model, rank, target_names=DEFAULT_TARGETS, lora_alpha=None):
  """Freezes `model`'s variables; LoRA of `rank` on the `target_names` Dense.

  Args:
    model: a `BertModel` (or any layer holding `modeling.Dense` layers).
    rank: int > 0, the rank of the update `lora_kernel_a @ lora_kernel_b`.
    target_names: names of the Dense layers that get LoRA ("query", "key",
      "value", "dense", ...).
    lora_alpha: scale of the update is lora_alpha / rank (default: rank).

  Raises:
    ValueError: bad rank, or no layer named as in `target_names`.
  """
  if not isinstance(rank, int) or rank <= 0:
    raise ValueError("LoRA rank must be a positive integer, got %r" % (rank,))
  for variable in model.weights:
    variable.trainable = False
  targets = [l for l in _dense_layers(model) if l.name in target_names]
  if not targets:
    raise ValueError("no Dense layer named any of %s" % (list(target_names),))
  for layer in targets:
    layer.enable_lora(rank, lora_alpha=lora_alpha)


def _trainable_names(model):
  """LoRA variables plus the other trainable ones (a head), by name."""
  names = checkpoint.lora_variable_names(model)
  lora = {id(v) for v in names.values()}
  trainable = {id(v) for v in model.trainable_weights}
  for name, var in checkpoint.original_variable_names(
      model, include_unmapped=False).items():
    if id(var) in trainable and id(var) not in lora:
      names[name] = var
  return names


def save_lora_weights(model, path):
  """Writes the LoRA (and other trainable) variables to `path` (.npz).

  Raises:
    ValueError: the model has no LoRA variables.
  """
  names = _trainable_names(model)
  if not checkpoint.lora_variable_names(model):
    raise ValueError("the model has no LoRA variables (call enable_lora)")
  arrays = {name: np.asarray(var.numpy()) for name, var in names.items()}
  directory = os.path.dirname(os.path.abspath(path))
  fd, tmp = tempfile.mkstemp(dir=directory, suffix=".npz.tmp")
  try:
    with os.fdopen(fd, "wb") as f:
      np.savez(f, **arrays)
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def load_lora_weights(model, path, enable=None):
  """Loads a `save_lora_weights` file; enables LoRA first if needed.

  Args:
    model: the model the file was saved from, freshly built (e.g. loaded
      from the base checkpoint).
    path: the .npz file.
    enable: function(rank) that enables LoRA on `model` when it has none
      (default: `enable_lora(model, rank)`).

  Raises:
    ValueError: the file's names or shapes do not match the model.
  """
  with np.load(path) as data:
    arrays = {name: data[name] for name in data.files}
  ranks = {a.shape[1] for n, a in arrays.items() if n.endswith("lora_kernel_a")}
  if len(ranks) != 1:
    raise ValueError("%s: no LoRA weights (or several ranks) in the file"
                     % path)
  if not checkpoint.lora_variable_names(model):
    rank = int(ranks.pop())
    if enable is None:
      enable_lora(model, rank)
    else:
      enable(rank)
  names = _trainable_names(model)
  if set(names) != set(arrays):
    raise ValueError(
        "%s does not match the model: missing %s, unexpected %s" % (
            path, sorted(set(names) - set(arrays))[:5],
            sorted(set(arrays) - set(names))[:5]))
  for name, var in names.items():
    if tuple(var.shape) != arrays[name].shape:
      raise ValueError("%s: %s has shape %s, the model %s" % (
          path, name, arrays[name].shape, tuple(var.shape)))
  for name, var in names.items():
    var.assign(arrays[name])


class Adaptable(object):
  """`enable_lora(rank)`, `save_lora_weights(path)`, `load_lora_weights(path)`
  as methods (keras-hub's calls).

  A subclass says where they act: `lora_parts()` -> (the `BertModel` that
  gets LoRA, the model whose variables the file holds, by their original
  names). Default: the model itself for both.
  """

  def lora_parts(self):
    """(encoder, named model); see the class docstring."""
    return self, self

  def enable_lora(self, rank, target_names=DEFAULT_TARGETS, lora_alpha=None):
    """Freezes the encoder; Keras LoRA in its `target_names` projections
    (a task model's head stays trainable)."""
    enable_lora(self.lora_parts()[0], rank, target_names=target_names,
                lora_alpha=lora_alpha)

  def save_lora_weights(self, path):
    """Writes the LoRA variables (and a head's) to `path` (.npz)."""
    save_lora_weights(self.lora_parts()[1], path)

  def load_lora_weights(self, path):
    """Loads `save_lora_weights`' file onto this (base) model, enabling
    LoRA at the file's rank first if needed."""
    load_lora_weights(self.lora_parts()[1], path, enable=self.enable_lora)
