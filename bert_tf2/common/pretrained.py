"""One-call loading of a pretrained BERT directory into any model.

`load(cls, directory, **kwargs)` builds `cls(config, **kwargs)` and loads
its encoder (and any head the checkpoint has) from either

* an original checkpoint directory: `bert_config.json`, `vocab.txt` and
  one checkpoint (`bert_model.ckpt`, or any single prefix there); or
* a Hugging Face BERT directory: `config.json`, `model.safetensors`,
  `vocab.txt` (converted in memory by `modeling.hf_import`); or
* a training run's output_dir (`bert_tf2.common.artifact`): every variable
  of the model, head included, must then come from its checkpoint (a
  run_pretraining.py output_dir: the encoder's).

The casing is detected from the vocabulary unless given. Every encoder
variable must come from the checkpoint; a bad directory is one
`InputError` line. The directory's facts are kept on the model as
`model.pretrained` (a `PretrainedDir`).

Example:
  >>> import os, tempfile, modeling
  >>> d = tempfile.mkdtemp()
  >>> with open(os.path.join(d, "vocab.txt"), "w") as f:
  ...   _ = f.write("[PAD]\\n[UNK]\\nThe\\nthe\\n")
  >>> detect_lower_case(os.path.join(d, "vocab.txt"))
  False
"""

import collections
import json
import os

import numpy as np
import tensorflow as tf

import modeling
from bert_tf2.common import artifact
from bert_tf2.common import named_files
from modeling import hf_import
from modeling import hf_names
from tokenization.errors import InputError


class PretrainedDir(collections.namedtuple(
    "PretrainedDir", ["directory", "config", "vocab_file", "do_lower_case",
                      "checkpoint", "hf"])):
  """What `read_dir` found (checkpoint: prefix; hf: True for HF layout)."""


def detect_lower_case(vocab_file):
  """False if the vocabulary has capitalised pieces (a cased model)."""
  capitalised = total = 0
  with tf.io.gfile.GFile(vocab_file, "r") as f:
    for line in f:
      token = line.strip()
      if not token or (token.startswith("[") and token.endswith("]")):
        continue
      total += 1
      capitalised += token != token.lower()
  # Uncased vocabularies may keep a handful (e.g. from scripts without case).
  return capitalised < max(1, total // 1000)


def _one_checkpoint(directory):
  indexes = sorted(os.path.join(directory, name)
                   for name in tf.io.gfile.listdir(directory)
                   if name.endswith(".index"))
  if not indexes:
    raise InputError("%s: no checkpoint (bert_model.ckpt.index) and no "
                     "model.safetensors" % directory)
  names = [os.path.basename(i) for i in indexes]
  if "bert_model.ckpt.index" in names:
    return os.path.join(directory, "bert_model.ckpt")
  if len(indexes) > 1:
    raise InputError("%s: %d checkpoints and no bert_model.ckpt: %s"
                     % (directory, len(indexes), ", ".join(names)))
  return indexes[0][:-len(".index")]


def read_dir(directory, do_lower_case=None):
  """Returns the `PretrainedDir` of an original or Hugging Face directory,
  or of a run's output_dir (its model.json: `bert_tf2.common.artifact`)."""
  if not tf.io.gfile.isdir(directory):
    raise InputError("%s: not a directory" % directory)
  if artifact.exists(directory):
    return _read_artifact(directory, do_lower_case)
  vocab_file = os.path.join(directory, "vocab.txt")
  if not tf.io.gfile.exists(vocab_file):
    raise InputError("%s: no vocab.txt" % directory)
  original = os.path.join(directory, "bert_config.json")
  hf_config = os.path.join(directory, "config.json")
  if tf.io.gfile.exists(original):
    config = modeling.BertConfig.from_json_file(original)
    prefix, hf = _one_checkpoint(directory), False
    modeling.check_config_matches_checkpoint(config, prefix,
                                             flag="checkpoint",
                                             config_file=original)
  elif tf.io.gfile.exists(hf_config):
    try:
      with tf.io.gfile.GFile(hf_config, "r") as f:
        raw = json.load(f)
    except ValueError as e:
      raise InputError("%s: not valid JSON: %s" % (hf_config, e))
    config = hf_import.hf_config_to_bert_config(raw, source=hf_config)
    prefix, hf = None, True
    if do_lower_case is None:
      do_lower_case = _hf_lower_case(directory)
  else:
    raise InputError("%s: no bert_config.json (original checkpoint) or "
                     "config.json (Hugging Face)" % directory)
  if do_lower_case is None:
    do_lower_case = detect_lower_case(vocab_file)
  with tf.io.gfile.GFile(vocab_file, "r") as f:
    vocab_size = sum(1 for _ in f)
  if vocab_size != config.vocab_size:
    raise InputError("%s: %d entries but the config's vocab_size is %d"
                     % (vocab_file, vocab_size, config.vocab_size))
  return PretrainedDir(directory, config, vocab_file, bool(do_lower_case),
                       prefix, hf)


def _read_artifact(directory, do_lower_case=None):
  """The `PretrainedDir` of a run's output_dir: its recorded config,
  vocabulary, casing and checkpoint (the answer, else the latest)."""
  found = artifact.read(directory)
  if found.vocab_file is None:
    raise InputError("%s: %s records no vocabulary (a %s run); give the "
                     "pretrained directory's vocab.txt" % (
                         directory, artifact.FILE, found.task))
  config = modeling.BertConfig.from_json_file(found.config_file)
  if do_lower_case is None:
    do_lower_case = found.preprocessor.get("do_lower_case")
  if do_lower_case is None:
    do_lower_case = detect_lower_case(found.vocab_file)
  if found.checkpoint:
    checkpoint = found.checkpoint
  else:  # None recorded (training did not finish): the latest, inside.
    named_files.checkpoints_inside(directory, directory)
    checkpoint = modeling.resolve_checkpoint(directory, flag="checkpoint")
    for name in named_files.checkpoint_files(checkpoint):
      named_files.inside(directory, name, "checkpoint")
  return PretrainedDir(directory, config, found.vocab_file,
                       bool(do_lower_case), checkpoint, False)


def _hf_lower_case(directory):
  path = os.path.join(directory, "tokenizer_config.json")
  if not tf.io.gfile.exists(path):
    return None
  try:
    with tf.io.gfile.GFile(path, "r") as f:
      value = json.load(f).get("do_lower_case")
  except ValueError:
    return None
  return value if isinstance(value, bool) else None


def _assign_hf(model, found):
  source = os.path.join(found.directory, "model.safetensors")
  tensors = hf_import.load_safetensors(found.directory)
  arrays = hf_names.hf_to_original_names(tensors, found.config, source=source)
  names = modeling.original_variable_names(model, include_unmapped=False)
  loaded = []
  for name, var in names.items():
    if name in arrays:
      value = np.asarray(arrays[name])
      if tuple(var.shape) != value.shape:
        raise InputError("%s: %s has shape %s but %s in the model"
                         % (source, name, value.shape, tuple(var.shape)))
      var.assign(value.astype(var.dtype))
      loaded.append(name)
  return names, loaded


def load(cls, directory, do_lower_case=None, **kwargs):
  """`cls(config, **kwargs)` with the weights of `directory` (see module)."""
  found = read_dir(directory, do_lower_case)
  model = cls(found.config, **kwargs)
  if found.hf:
    names, loaded = _assign_hf(model, found)
  else:
    report = modeling.init_from_checkpoint(model, found.checkpoint,
                                           flag="checkpoint")
    names = modeling.original_variable_names(model, include_unmapped=False)
    loaded = report.loaded
  # A run's own checkpoint holds the head too: every variable must load.
  whole = (artifact.exists(directory) and
           artifact.read(directory).task != "pretraining")
  missing = sorted(set(n for n in names if whole or n.startswith("bert/")) -
                   set(loaded))
  if missing:
    raise InputError("%s: the checkpoint lacks %d %s variables (e.g. %s)%s"
                     % (directory, len(missing),
                        "model" if whole else "encoder", missing[0],
                        "; an argument given to load does not match the "
                        "run's model" if whole else ""))
  model.pretrained = found
  return model


def load_bert_model(directory, do_lower_case=None, **kwargs):
  """A `modeling.BertModel` loaded from `directory` (see `load`)."""
  return load(modeling.BertModel, directory, do_lower_case, **kwargs)
