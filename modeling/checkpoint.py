"""Original checkpoint names, and loading original TF1 checkpoints.

  >>> names = original_variable_names(model)          # doctest: +SKIP
  >>> sorted(names)[:2]                                # doctest: +SKIP
  ['bert/embeddings/LayerNorm/beta', 'bert/embeddings/LayerNorm/gamma']
  >>> report = init_from_checkpoint(model, "uncased_L-12_H-768_A-12/"
  ...                               "bert_model.ckpt")  # doctest: +SKIP

`original_variable_names` walks a model (or a list/dict of layers) and joins
each root layer's `original_scope` (`BertModel`: "bert", heads:
"cls/predictions", ...) with its `original_variables()`.
"""

import collections
import os
import re

from absl import logging
import keras
import numpy as np
import tensorflow as tf

from modeling import literal_paths
from modeling import layers as layers_lib
from tokenization.errors import InputError

# Checkpoint entries that hold training state, not model weights.
_TRAINING_STATE = re.compile(r"(^|/)(adam_m|adam_v|global_step)$|"
                             r"^_CHECKPOINTABLE_OBJECT_GRAPH$")


def _is_root(layer):
  return (isinstance(layer, layers_lib.OriginalNamed) and
          hasattr(layer, "original_scope"))


def _var_key(variable):
  return id(variable)


def original_variable_names(model, include_unmapped=True):
  """Returns {original checkpoint name: variable} for a model.

  Args:
    model: a `BertModel`, a head, a Keras model holding them (any depth), or
      a list/dict of those.
    include_unmapped: also include trainable variables of other layers
      (ones this package did not create) under their Keras path, so that
      checkpoints lose nothing; a warning names them.

  Returns:
    An ordered dict, e.g. {"bert/embeddings/word_embeddings": <Variable>,
    ..., "cls/predictions/output_bias": <Variable>}.

  Raises:
    ValueError: two layers claim the same name (e.g. two BertModels with the
      default scope "bert").
  """
  result = collections.OrderedDict()
  covered = set()
  seen_roots = set()
  for layer in layers_lib.iter_layers(model):
    if not _is_root(layer) or id(layer) in seen_roots:
      continue
    seen_roots.add(id(layer))
    scope = layer.original_scope
    for rel, var in layer.original_variables().items():
      name = "%s/%s" % (scope, rel) if scope else rel
      if name in result and result[name] is not var:
        raise ValueError(
            "two variables are named %r; give one BertModel/head another "
            "scope=" % name)
      result[name] = var
      covered.add(_var_key(var))
  if include_unmapped:
    for name, var in lora_variable_names(model).items():
      result[name] = var
      covered.add(_var_key(var))
    extra = []
    for layer in layers_lib.iter_layers(model):
      for var in getattr(layer, "trainable_weights", []):
        if _var_key(var) not in covered:
          name = getattr(var, "path", None) or var.name
          result[name] = var
          covered.add(_var_key(var))
          extra.append(name)
    if extra:
      logging.warning("Variables without an original BERT name are saved "
                      "under their Keras path: %s", ", ".join(extra))
  return result


def lora_variable_names(model):
  """{original-style name: variable} of the LoRA variables in `model`.

  Keras' LoRA (`modeling.lora.enable_lora`) adds `lora_kernel_a` and
  `lora_kernel_b` to a `Dense`; each is named after its layer's original
  kernel, e.g. "bert/encoder/layer_0/attention/self/query/lora_kernel_a".
  Empty when LoRA is not enabled.
  """
  kernels = {id(l._kernel): l for l in layers_lib.iter_layers(model)  # pylint: disable=protected-access
             if isinstance(l, layers_lib.Dense) and l.lora_enabled}
  out = {}
  if not kernels:
    return out
  for name, var in original_variable_names(
      model, include_unmapped=False).items():
    layer = kernels.get(id(var))
    if layer is not None:
      prefix = name[:-len("kernel")]
      out[prefix + "lora_kernel_a"] = layer.lora_kernel_a
      out[prefix + "lora_kernel_b"] = layer.lora_kernel_b
  return out


class InitReport(collections.namedtuple(
    "InitReport", ["checkpoint", "loaded", "not_loaded", "unused"])):
  """What `init_from_checkpoint` did.

  Fields:
    checkpoint: the checkpoint prefix that was read.
    loaded: names assigned from the checkpoint.
    not_loaded: model names absent from the checkpoint (left as they were).
    unused: checkpoint names the model has no variable for (optimizer state
      `adam_m`/`adam_v`/`global_step` is not listed).
  """

  def __str__(self):
    return ("%s: %d variables loaded, %d not in the checkpoint (%s), "
            "%d checkpoint variables unused (%s)" % (
                self.checkpoint, len(self.loaded), len(self.not_loaded),
                ", ".join(self.not_loaded[:10]) or "-", len(self.unused),
                ", ".join(self.unused[:10]) or "-"))


def is_finite_array(value):
  """False if `value` (a checkpoint tensor) is floating point with a NaN or
  an Inf; True otherwise (integers, strings, finite floats).

  Example:
    >>> is_finite_array(np.array([1.0, np.nan])), is_finite_array(np.int64(3))
    (False, True)
  """
  value = np.asarray(value)
  return (not np.issubdtype(value.dtype, np.floating) or
          bool(np.isfinite(value).all()))


def non_finite_phrase(names, total):
  """"holds NaN or Inf in N of M tensors (e.g. a, b)": what is wrong with
  a checkpoint (or the weights about to be saved) whose `names` are not
  finite, out of `total`.

  Example:
    >>> non_finite_phrase(["a", "b"], 3)
    'holds NaN or Inf in 2 of 3 tensors (e.g. a, b)'
  """
  return "holds NaN or Inf in %d of %d tensors (e.g. %s)" % (
      len(names), total, ", ".join(list(names)[:2]))


# Weights files of other frameworks, named in resolve_checkpoint's error.
_FOREIGN_WEIGHTS = (".safetensors", ".bin", ".pt", ".pth", ".h5")


def resolve_checkpoint(path, flag="init_checkpoint"):
  """Returns the checkpoint prefix for `path`, or raises InputError.

  Accepts a prefix ("dir/bert_model.ckpt", "dir/model.ckpt-1000"), one of
  its files ("...ckpt.index", "...ckpt.data-00000-of-00001") or a
  directory: its latest checkpoint per the `checkpoint` state file, else
  the one checkpoint it holds (Google's released model folders have no
  state file).

  Args:
    path: the flag's value.
    flag: the flag named in error messages.

  Raises:
    InputError: empty path, a Hugging Face / PyTorch weights file, a
      directory with no or several checkpoints (and no state file), or no
      `.index` file for the prefix.

  Example:
    >>> try:
    ...   resolve_checkpoint("/no/x.ckpt.index")
    ... except InputError as e:
    ...   print(e)
    --init_checkpoint=/no/x.ckpt.index: no checkpoint there (/no/x.ckpt.index not found)
  """
  if not path:
    raise InputError("--%s is required" % flag)
  path = str(path)
  if path.endswith(_FOREIGN_WEIGHTS):
    raise InputError(
        "--%s=%s: looks like a Hugging Face / PyTorch weights file, not an "
        "original TF checkpoint; convert it first with "
        "convert_hf_checkpoint.py" % (flag, path))
  if tf.io.gfile.isdir(path):
    try:
      latest = literal_paths.listed_checkpoint(path)
    except ValueError as e:  # A damaged state file: look at the files.
      logging.warning("Ignoring %s", e)
      latest = None
    if latest is not None:
      return latest
    directory = path.rstrip("/") or "/"
    found = sorted(os.path.join(directory, name)
                   for name in tf.io.gfile.listdir(directory)
                   if name.endswith(".index"))
    if len(found) == 1:
      return found[0][:-len(".index")]
    if not found:
      raise InputError("--%s=%s: directory has no checkpoint (it holds no "
                       "checkpoint index file, *.index)" % (flag, path))
    raise InputError("--%s=%s: directory has %d checkpoints and no "
                     "'checkpoint' state file; name one, e.g. %s"
                     % (flag, path, len(found), found[-1][:-len(".index")]))
  prefix = re.sub(r"\.(index|meta|data-\d+-of-\d+)$", "", path)
  if not tf.io.gfile.exists(prefix + ".index"):
    raise InputError("--%s=%s: no checkpoint there (%s.index not found)"
                     % (flag, path, prefix))
  return prefix


def open_checkpoint(path, flag="init_checkpoint"):
  """(prefix, tf.train.CheckpointReader) for `path` (see resolve_checkpoint).

  Raises:
    InputError: as resolve_checkpoint, or the checkpoint cannot be read.
  """
  prefix = resolve_checkpoint(path, flag)
  return prefix, _reader(prefix, flag)


def _reader(prefix, flag):
  try:
    return literal_paths.load_checkpoint(prefix)
  except (tf.errors.OpError, ValueError) as e:
    raise InputError("--%s=%s: cannot read checkpoint: %s"
                     % (flag, prefix, literal_paths.real_text(
                         (str(e).splitlines() or [type(e).__name__])[0])))\
        from e


def _shape_error(flag, prefix, name, have, want):
  return InputError(
      "--%s=%s: variable %s has shape %s in the checkpoint but %s in the "
      "model (does bert_config.json match this checkpoint?)"
      % (flag, prefix, name, list(have), list(want)))


def encoder_shapes(config):
  """{original name: shape} of the encoder variables that carry each size
  of `config` (embeddings, and per layer the query, intermediate and output
  kernels): enough to tell a config from another model's.

  >>> from modeling.config import BertConfig
  >>> shapes = encoder_shapes(BertConfig(vocab_size=10, hidden_size=8,
  ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16))
  >>> shapes["bert/encoder/layer_0/intermediate/dense/kernel"]
  (8, 16)
  """
  h = config.hidden_size
  shapes = {
      "bert/embeddings/word_embeddings": (config.vocab_size, h),
      "bert/embeddings/token_type_embeddings": (config.type_vocab_size, h),
      "bert/embeddings/position_embeddings": (
          config.max_position_embeddings, h)}
  for i in range(config.num_hidden_layers):
    layer = "bert/encoder/layer_%d/" % i
    shapes[layer + "attention/self/query/kernel"] = (h, h)
    shapes[layer + "intermediate/dense/kernel"] = (h, config.intermediate_size)
    shapes[layer + "output/dense/kernel"] = (config.intermediate_size, h)
  return shapes


_ENCODER_LAYER = re.compile(r"^bert/encoder/layer_(\d+)/")


def checkpoint_sizes(shapes):
  """{bert_config.json key: value} that a checkpoint's variable shapes fix.

  From the original variable names: `vocab_size`, `hidden_size` (word
  embeddings, else the first layer's query kernel), `type_vocab_size`,
  `max_position_embeddings`, `intermediate_size` (the first layer's
  intermediate kernel) and `num_hidden_layers` (how many distinct
  bert/encoder/layer_N the checkpoint holds). `num_attention_heads` is not
  among them: the query/key/value kernels are [hidden, hidden] whatever the
  heads. A key whose variable is absent is left out.

  Args:
    shapes: {name: shape}, e.g. a CheckpointReader's variable_to_shape_map.

  >>> checkpoint_sizes({"bert/embeddings/word_embeddings": [10, 8],
  ...     "bert/encoder/layer_0/intermediate/dense/kernel": [8, 16],
  ...     "bert/encoder/layer_1/output/dense/kernel": [16, 8]})
  {'vocab_size': 10, 'hidden_size': 8, 'intermediate_size': 16, 'num_hidden_layers': 2}
  """
  sizes = {}
  word = shapes.get("bert/embeddings/word_embeddings")
  if word is not None and len(word) == 2:
    sizes["vocab_size"], sizes["hidden_size"] = int(word[0]), int(word[1])
  query = shapes.get("bert/encoder/layer_0/attention/self/query/kernel")
  if "hidden_size" not in sizes and query is not None and len(query) == 2:
    sizes["hidden_size"] = int(query[1])
  for key, name in (("type_vocab_size", "token_type_embeddings"),
                    ("max_position_embeddings", "position_embeddings")):
    shape = shapes.get("bert/embeddings/" + name)
    if shape is not None and len(shape) == 2:
      sizes[key] = int(shape[0])
  inner = shapes.get("bert/encoder/layer_0/intermediate/dense/kernel")
  if inner is not None and len(inner) == 2:
    sizes["intermediate_size"] = int(inner[1])
  layers = {int(m.group(1)) for m in map(_ENCODER_LAYER.match, shapes) if m}
  if layers:
    sizes["num_hidden_layers"] = len(layers)
  return sizes


def check_config_matches_checkpoint(config, init_checkpoint,
                                    flag="init_checkpoint",
                                    config_file="bert_config.json"):
  """Refuses a checkpoint that contradicts a size of `config`: every key of
  `checkpoint_sizes` (layers, hidden, intermediate, vocabulary, positions,
  token types; a config lacking `num_hidden_layers` builds 12 layers, a
  checkpoint with fewer or more is named), then any other encoder variable
  of another shape (`encoder_shapes`). From the checkpoint's index alone:
  before any model, record or output. One home for every script that starts
  from a checkpoint.

  Raises:
    InputError: one line naming each contradicted key with the config's
      value and the checkpoint's (or the first variable and both shapes).
  """
  prefix = resolve_checkpoint(init_checkpoint, flag)
  have = _reader(prefix, flag).get_variable_to_shape_map()
  wrong = _size_mismatches(config, checkpoint_sizes(have))
  if wrong:
    raise InputError("--%s=%s: %s says %s; does it belong to this "
                     "checkpoint?" % (flag, prefix, config_file, wrong))
  for name, want in encoder_shapes(config).items():
    if name in have and tuple(have[name]) != tuple(want):
      raise _shape_error(flag, prefix, name, have[name], want)


def _size_mismatches(config, sizes):
  """"key=a but the checkpoint has b; ..." for each key of `sizes` (from
  `checkpoint_sizes`) that `config` contradicts; "" if none.

  >>> from modeling.config import BertConfig
  >>> config = BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=12,
  ...                     num_attention_heads=2, intermediate_size=16)
  >>> print(_size_mismatches(config, {"num_hidden_layers": 1}))
  num_hidden_layers=12 but the checkpoint has 1
  """
  return "; ".join(
      "%s=%s but the checkpoint has %d" % (key, getattr(config, key), value)
      for key, value in sizes.items() if getattr(config, key) != value)


def _read_tensor(reader, name, prefix, flag):
  """reader.get_tensor(name); a damaged data file is an InputError.

  The reader checks each tensor's CRC32C: a bit flip or zeroed block is a
  DataLossError, a truncated file an IndexError ("Read less bytes than
  requested"). A floating-point value with a NaN or an Inf is refused too.
  """
  try:
    value = reader.get_tensor(name)
  except (tf.errors.OpError, IndexError, ValueError) as e:
    raise InputError("--%s=%s: damaged checkpoint, cannot read %s: %s"
                     % (flag, prefix, name, literal_paths.real_text(
                         (str(e).splitlines() or [type(e).__name__])[0])))\
        from e
  if not is_finite_array(value):
    raise InputError("--%s=%s: variable %s holds NaN or Inf (the checkpoint "
                     "of a run that diverged?); it cannot be trained from, "
                     "evaluated or exported" % (flag, prefix, name))
  return value


def init_from_checkpoint(model, init_checkpoint, assignment_map=None,
                         flag="init_checkpoint", require_match=True):
  """Assigns the model's variables from an original-format checkpoint.

  Works for Google's released checkpoints, checkpoints written by the
  original code (with or without optimizer state) and by
  `modeling.save_checkpoint`. Variables are matched by original name;
  `adam_m`, `adam_v` and `global_step` entries are ignored.

  Args:
    model: anything `original_variable_names` accepts, or a dict
      {name: variable}.
    init_checkpoint: checkpoint prefix, one of its files, or a directory.
    assignment_map: optional {checkpoint name: model name} for renamed
      variables (names not in it are matched as they are).
    flag: flag name for error messages.
    require_match: raise InputError if no variable at all matches (a
      checkpoint of another model).

  Returns:
    `InitReport`.

  Raises:
    InputError: missing/unreadable checkpoint, a shape mismatch (naming the
      variable and both shapes), or no matching variable.
  """
  prefix = resolve_checkpoint(init_checkpoint, flag)
  if isinstance(model, dict) and all(
      not isinstance(v, keras.layers.Layer) for v in model.values()):
    name_to_var = dict(model)
  else:
    name_to_var = original_variable_names(model, include_unmapped=False)
  reader = _reader(prefix, flag)
  shapes = reader.get_variable_to_shape_map()
  renames = {v: k for k, v in (assignment_map or {}).items()}
  loaded, not_loaded, assignments = [], [], []
  for name, var in name_to_var.items():
    ckpt_name = renames.get(name, name)
    if ckpt_name not in shapes:
      not_loaded.append(name)
      continue
    want = tuple(var.shape)
    have = tuple(shapes[ckpt_name])
    if want != have:
      raise _shape_error(flag, prefix, ckpt_name, have, want)
    assignments.append((var, ckpt_name))
    loaded.append(name)
  used = {renames.get(n, n) for n in loaded}
  unused = sorted(n for n in shapes
                  if n not in used and not _TRAINING_STATE.search(n))
  if require_match and not loaded and name_to_var:
    raise InputError(
        "--%s=%s: none of the model's %d variables is in the checkpoint "
        "(it has e.g. %s)" % (flag, prefix, len(name_to_var),
                              ", ".join(sorted(shapes)[:5])))
  for var, ckpt_name in assignments:
    value = _read_tensor(reader, ckpt_name, prefix, flag)
    var.assign(np.asarray(value).astype(var.dtype, copy=False)
               if hasattr(value, "astype") else value)
  report = InitReport(prefix, loaded, not_loaded, unused)
  logging.info("init_from_checkpoint %s", report)
  for name in loaded:
    logging.debug("  name = %s, INIT_FROM_CKPT", name)
  return report


def get_assignment_map_from_checkpoint(model, init_checkpoint):
  """Original-named helper: ({ckpt name: name}, {name: 1, name:0: 1}).

  Unlike the original it takes a model (or anything
  `original_variable_names` accepts) rather than a variable list, since
  Keras variables do not carry the original names.
  """
  prefix = resolve_checkpoint(init_checkpoint)
  names = original_variable_names(model, include_unmapped=False)
  assignment_map = collections.OrderedDict()
  initialized = {}
  reader = literal_paths.load_checkpoint(prefix)
  for name in sorted(reader.get_variable_to_shape_map()):
    if name in names:
      assignment_map[name] = name
      initialized[name] = 1
      initialized[name + ":0"] = 1
  return assignment_map, initialized
