"""Hugging Face BERT tensor names -> original checkpoint names.

HF stores torch `Linear` weights as [out, in]; the original stores dense
kernels as [in, out], so those are transposed. Embedding tables, LayerNorm
parameters and the NSP `output_weights` ([2, hidden] in both) are not.
Keys may carry the "bert." prefix (BertForPreTraining) or not (BertModel).

Example:
  >>> import numpy as np
  >>> out = hf_to_original_names(
  ...     {"encoder.layer.0.attention.self.query.weight": np.eye(2)[::-1]})
  >>> list(out), out["bert/encoder/layer_0/attention/self/query/kernel"][0]
  (['bert/encoder/layer_0/attention/self/query/kernel'], array([0., 1.], dtype=float32))
"""

import re

from absl import logging
import numpy as np

from tokenization.errors import InputError

# (HF suffix regex, original name template, transpose?)
_RULES = [
    (r"embeddings\.word_embeddings\.weight", "bert/embeddings/word_embeddings",
     False),
    (r"embeddings\.position_embeddings\.weight",
     "bert/embeddings/position_embeddings", False),
    (r"embeddings\.token_type_embeddings\.weight",
     "bert/embeddings/token_type_embeddings", False),
    (r"embeddings\.LayerNorm\.(weight|gamma)", "bert/embeddings/LayerNorm/gamma",
     False),
    (r"embeddings\.LayerNorm\.(bias|beta)", "bert/embeddings/LayerNorm/beta",
     False),
    (r"encoder\.layer\.(\d+)\.attention\.self\.(query|key|value)\.weight",
     "bert/encoder/layer_{0}/attention/self/{1}/kernel", True),
    (r"encoder\.layer\.(\d+)\.attention\.self\.(query|key|value)\.bias",
     "bert/encoder/layer_{0}/attention/self/{1}/bias", False),
    (r"encoder\.layer\.(\d+)\.(attention\.output|intermediate|output)"
     r"\.dense\.weight", "bert/encoder/layer_{0}/{1}/dense/kernel", True),
    (r"encoder\.layer\.(\d+)\.(attention\.output|intermediate|output)"
     r"\.dense\.bias", "bert/encoder/layer_{0}/{1}/dense/bias", False),
    (r"encoder\.layer\.(\d+)\.(attention\.output|output)\.LayerNorm\."
     r"(?:weight|gamma)", "bert/encoder/layer_{0}/{1}/LayerNorm/gamma", False),
    (r"encoder\.layer\.(\d+)\.(attention\.output|output)\.LayerNorm\."
     r"(?:bias|beta)", "bert/encoder/layer_{0}/{1}/LayerNorm/beta", False),
    (r"pooler\.dense\.weight", "bert/pooler/dense/kernel", True),
    (r"pooler\.dense\.bias", "bert/pooler/dense/bias", False),
    (r"cls\.predictions\.transform\.dense\.weight",
     "cls/predictions/transform/dense/kernel", True),
    (r"cls\.predictions\.transform\.dense\.bias",
     "cls/predictions/transform/dense/bias", False),
    (r"cls\.predictions\.transform\.LayerNorm\.(?:weight|gamma)",
     "cls/predictions/transform/LayerNorm/gamma", False),
    (r"cls\.predictions\.transform\.LayerNorm\.(?:bias|beta)",
     "cls/predictions/transform/LayerNorm/beta", False),
    (r"cls\.predictions\.bias", "cls/predictions/output_bias", False),
    (r"cls\.seq_relationship\.weight", "cls/seq_relationship/output_weights",
     False),
    (r"cls\.seq_relationship\.bias", "cls/seq_relationship/output_bias",
     False),
]
_RULES = [(re.compile(r"^(?:bert\.)?" + p + "$"), t, tr) for p, t, tr in _RULES]
# Tensors that carry no weights of the original model.
_IGNORED = re.compile(r"(position_ids|cls\.predictions\.decoder\.(weight|bias)"
                      r"|\.num_batches_tracked)$")


def original_name(key):
  """(original name, transposed?) of one HF tensor name, or None where the
  tensor has no original equivalent.

  >>> original_name("bert.pooler.dense.weight")
  ('bert/pooler/dense/kernel', True)
  >>> original_name("embeddings.position_ids") is None
  True
  """
  for pattern, template, transpose in _RULES:
    m = pattern.match(key)
    if m:
      return template.format(*[g.replace(".", "/") for g in m.groups()]), \
          transpose
  return None


def hf_to_original_names(tensors, config=None, source="model.safetensors"):
  """Renames/transposes HF tensors to {original name: float32 array}.

  Args:
    tensors: {HF name: numpy array}, with or without the "bert." prefix.
    config: optional `BertConfig`; if given, every encoder variable it
      implies must be present with the right shape.
    source: what to name in error messages.

  Returns:
    dict {original name: numpy float32 array}.
  """
  out = {}
  skipped = []
  for key, value in tensors.items():
    found = original_name(key)
    if found is None:
      if not _IGNORED.search(key):
        skipped.append(key)
      continue
    name, transpose = found
    array = np.asarray(value, dtype=np.float32)
    out[name] = np.ascontiguousarray(array.T) if transpose else array
  if skipped:
    logging.warning("%s: tensors without an original BERT equivalent were "
                    "skipped: %s", source, ", ".join(sorted(skipped)[:20]))
  if config is not None:
    expected = _expected_shapes(config)
    for name, shape in expected.items():
      if name not in out:
        if name.startswith("bert/pooler/"):
          # e.g. BertForMaskedLM saves no pooler; it stays randomly
          # initialised, as the original leaves variables a checkpoint lacks.
          logging.warning("%s: no pooler weights (%s)", source, name)
          continue
        raise InputError("%s: no tensor for %s (is this a BERT model?)"
                         % (source, name))
      if tuple(out[name].shape) != shape:
        raise InputError("%s: %s has shape %s, config.json implies %s"
                         % (source, name, list(out[name].shape), list(shape)))
  return out


def _expected_shapes(config):
  h, i = config.hidden_size, config.intermediate_size
  shapes = {
      "bert/embeddings/word_embeddings": (config.vocab_size, h),
      "bert/embeddings/position_embeddings": (config.max_position_embeddings, h),
      "bert/embeddings/token_type_embeddings": (config.type_vocab_size, h),
      "bert/embeddings/LayerNorm/gamma": (h,),
      "bert/embeddings/LayerNorm/beta": (h,),
      "bert/pooler/dense/kernel": (h, h),
      "bert/pooler/dense/bias": (h,),
  }
  for n in range(config.num_hidden_layers):
    p = "bert/encoder/layer_%d/" % n
    for part in ("query", "key", "value"):
      shapes[p + "attention/self/%s/kernel" % part] = (h, h)
      shapes[p + "attention/self/%s/bias" % part] = (h,)
    shapes[p + "attention/output/dense/kernel"] = (h, h)
    shapes[p + "intermediate/dense/kernel"] = (h, i)
    shapes[p + "intermediate/dense/bias"] = (i,)
    shapes[p + "output/dense/kernel"] = (i, h)
  return shapes
