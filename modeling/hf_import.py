"""Imports Hugging Face BERT weights into an original-format checkpoint.

Reads `model.safetensors` (or sharded `model-*.safetensors` with
`model.safetensors.index.json`) and `config.json` with the `safetensors`
package (numpy only, no torch), renames and transposes the tensors to the
original names, and writes `bert_model.ckpt.{index,data-*}`,
`bert_config.json` and, if present, `vocab.txt` into an output directory:
the layout of Google's released checkpoints.

GELU: Hugging Face's "gelu" is the exact (erf) GELU; the original code only
knows the tanh approximation under "gelu". By default the converted config
says "gelu" so that the original code can load it; outputs then differ from
Hugging Face's by a small amount (measured in docs/modeling.md). Pass
`exact_gelu=True` (`--exact_gelu`) to write "gelu_exact" instead: exact
Hugging Face outputs with this project, but not loadable by the original
code.

Example:
  >>> convert_hf_checkpoint("all-MiniLM-L6-v2/", "/tmp/minilm")  # doctest: +SKIP
"""

import json
import os
import shutil

from absl import logging
import tensorflow as tf

from tokenization.atomic import atomic_path
from tokenization.errors import InputError
from modeling import checkpoint_writer
from modeling import hf_names
from modeling.config import BertConfig

# HF activation name -> hidden_act in bert_config.json (default mode).
_HF_ACT = {
    "gelu": "gelu",                 # exact in HF; see module docstring
    "gelu_new": "gelu",             # tanh approximation: identical
    "gelu_pytorch_tanh": "gelu",    # tanh approximation: identical
    "gelu_fast": "gelu",
    "relu": "relu",
    "tanh": "tanh",
    "linear": "linear",
}
_HF_ACT_EXACT = dict(_HF_ACT, gelu="gelu_exact")

_CONFIG_FIELDS = ("vocab_size", "hidden_size", "num_hidden_layers",
                  "num_attention_heads", "intermediate_size",
                  "hidden_dropout_prob", "attention_probs_dropout_prob",
                  "max_position_embeddings", "type_vocab_size",
                  "initializer_range")

def hf_config_to_bert_config(hf_config, exact_gelu=False, source="config.json"):
  """Maps a Hugging Face BERT config dict to a validated `BertConfig`."""
  model_type = hf_config.get("model_type", "bert")
  if model_type != "bert":
    raise InputError("%s: model_type is %r; only BERT models can be "
                     "converted" % (source, model_type))
  missing = [f for f in _CONFIG_FIELDS[:5] if f not in hf_config]
  if missing:
    raise InputError("%s: missing %s" % (source, ", ".join(missing)))
  pos_type = hf_config.get("position_embedding_type", "absolute")
  if pos_type != "absolute":
    raise InputError("%s: position_embedding_type %r is not supported (only "
                     "absolute, as the original BERT)" % (source, pos_type))
  act = hf_config.get("hidden_act", "gelu")
  table = _HF_ACT_EXACT if exact_gelu else _HF_ACT
  if act not in table:
    raise InputError("%s: hidden_act %r has no equivalent in the original "
                     "BERT (known: %s)" % (source, act, ", ".join(sorted(table))))
  eps = hf_config.get("layer_norm_eps", 1e-12)
  if abs(eps - 1e-12) > 1e-15:
    logging.warning("%s: layer_norm_eps=%g; the original BERT (and this "
                    "project) always use 1e-12", source, eps)
  defaults = BertConfig(vocab_size=None).to_dict()
  values = {f: hf_config.get(f, defaults[f]) for f in _CONFIG_FIELDS}
  values["hidden_act"] = table[act]
  return BertConfig(**values).validate(source=source)


def load_safetensors(hf_dir):
  """Returns {HF tensor name: numpy array} from a model directory."""
  from safetensors.numpy import load_file  # pylint: disable=g-import-not-at-top
  single = os.path.join(hf_dir, "model.safetensors")
  index = os.path.join(hf_dir, "model.safetensors.index.json")
  if os.path.exists(single):
    files = [single]
  elif os.path.exists(index):
    with open(index, encoding="utf-8") as f:
      shards = sorted(set(json.load(f)["weight_map"].values()))
    files = [os.path.join(hf_dir, s) for s in shards]
  else:
    hint = (" (found pytorch_model.bin: convert it to safetensors first)"
            if os.path.exists(os.path.join(hf_dir, "pytorch_model.bin"))
            else "")
    raise InputError("--hf_dir=%s: no model.safetensors%s" % (hf_dir, hint))
  tensors = {}
  for path in files:
    try:
      tensors.update(load_file(path))
    except Exception as e:  # pylint: disable=broad-except
      raise InputError("--hf_dir=%s: cannot read %s: %s"
                       % (hf_dir, os.path.basename(path), e))
  return tensors


def convert_hf_checkpoint(hf_dir, output_dir, exact_gelu=False):
  """Converts a HF BERT directory into Google's released-checkpoint layout.

  Args:
    hf_dir: directory with config.json and model.safetensors (+ vocab.txt).
    output_dir: created if needed; receives bert_model.ckpt.*,
      bert_config.json and vocab.txt.
    exact_gelu: write hidden_act "gelu_exact" for HF's exact GELU (see the
      module docstring).

  Returns:
    (config, names): the `BertConfig` written and the list of variable
    names in the checkpoint.
  """
  if not os.path.isdir(hf_dir):
    raise InputError("--hf_dir=%s: not a directory" % hf_dir)
  config_path = os.path.join(hf_dir, "config.json")
  if not os.path.exists(config_path):
    raise InputError("--hf_dir=%s: no config.json" % hf_dir)
  try:
    with open(config_path, encoding="utf-8") as f:
      hf_config = json.load(f)
  except ValueError as e:
    raise InputError("%s: not valid JSON: %s" % (config_path, e))
  config = hf_config_to_bert_config(hf_config, exact_gelu, source=config_path)
  tensors = load_safetensors(hf_dir)
  variables = hf_names.hf_to_original_names(
      tensors, config, source=os.path.join(hf_dir, "model.safetensors"))
  tf.io.gfile.makedirs(output_dir)
  checkpoint_writer.write_checkpoint(
      variables, os.path.join(output_dir, "bert_model.ckpt"))
  config.to_json_file(os.path.join(output_dir, "bert_config.json"))
  vocab = os.path.join(hf_dir, "vocab.txt")
  if os.path.exists(vocab):
    with atomic_path(os.path.join(output_dir, "vocab.txt")) as tmp:
      shutil.copyfile(vocab, tmp)
  logging.info("Converted %s -> %s (%d variables, hidden_act=%s)", hf_dir,
               output_dir, len(variables), config.hidden_act)
  return config, sorted(variables)
