"""`BertConfig`: the hyper-parameters of a BERT model (bert_config.json).

The fields, their defaults and the JSON format are those of Google's released
`bert_config.json` files. A key that is neither a field nor one of the
unused keys some released configs carry (multilingual and Chinese:
`directionality`, `pooler_*`) is refused naming the nearest field, so that
`hidden_sise` cannot silently build a 768-wide model. The unused keys are
kept (and written back by `to_dict` / `to_json_string`), so a config
round-trips. A size missing from a file is refused with
`from_json_file(..., require_sizes=True)` (training from scratch), else
filled with the original's default and named in one warning.

Example:
  >>> cfg = BertConfig(vocab_size=100, hidden_size=36, num_hidden_layers=2,
  ...                  num_attention_heads=3, intermediate_size=50)
  >>> BertConfig.from_dict(cfg.to_dict()).hidden_size
  36
"""

import copy
import difflib
import json

from absl import logging

from tokenization.atomic import atomic_write_text
from tokenization.errors import InputError
from modeling import activations

_INT_FIELDS = ("vocab_size", "hidden_size", "num_hidden_layers",
               "num_attention_heads", "intermediate_size",
               "max_position_embeddings", "type_vocab_size")
_PROB_FIELDS = ("hidden_dropout_prob", "attention_probs_dropout_prob")
FIELDS = ("vocab_size", "hidden_size", "num_hidden_layers",
          "num_attention_heads", "intermediate_size", "hidden_act",
          "hidden_dropout_prob", "attention_probs_dropout_prob",
          "max_position_embeddings", "type_vocab_size", "initializer_range")
# The fields that set the model's shape and have a default: one missing from
# a file builds another model than the file's author meant.
SIZE_FIELDS = ("hidden_size", "num_hidden_layers", "num_attention_heads",
               "intermediate_size", "max_position_embeddings",
               "type_vocab_size")
# Keys Google's multilingual and Chinese configs carry that no code reads.
RELEASED_UNUSED_KEYS = ("directionality", "pooler_fc_size",
                        "pooler_num_attention_heads", "pooler_num_fc_layers",
                        "pooler_size_per_head", "pooler_type")
# Keys that only a Hugging Face config.json has.
_HF_KEYS = ("model_type", "architectures", "transformers_version")


def check_keys(keys, source="bert config"):
  """Raises `InputError` for the first key that is not a config key.

  Args:
    keys: the keys of a config dict.
    source: what to name in the message (the file's path).

  Example:
    >>> check_keys(["vocab_size", "hidden_sise"], "c.json")
    Traceback (most recent call last):
    ...
    tokenization.errors.InputError: c.json: unknown key 'hidden_sise' (did you mean 'hidden_size'?)
  """
  known = FIELDS + RELEASED_UNUSED_KEYS
  unknown = [k for k in keys if k not in known]
  if not unknown:
    return
  if any(k in _HF_KEYS for k in keys):
    raise InputError("%s: a Hugging Face config.json, not a bert_config.json "
                     "(convert the model directory with "
                     "convert_hf_checkpoint.py --hf_dir=...)" % source)
  key = unknown[0]
  near = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
  raise InputError("%s: unknown key %r%s" % (
      source, key, " (did you mean %r?)" % near[0] if near else
      " (known keys: %s)" % ", ".join(FIELDS)))


def missing_sizes(keys):
  """The `SIZE_FIELDS` not among `keys`, in field order.

  >>> missing_sizes(["vocab_size", "hidden_size"])[:2]
  ['num_hidden_layers', 'num_attention_heads']
  """
  return [f for f in SIZE_FIELDS if f not in keys]


class BertConfig(object):
  """Configuration of a `BertModel` (the fields of bert_config.json)."""

  def __init__(self,
               vocab_size,
               hidden_size=768,
               num_hidden_layers=12,
               num_attention_heads=12,
               intermediate_size=3072,
               hidden_act="gelu",
               hidden_dropout_prob=0.1,
               attention_probs_dropout_prob=0.1,
               max_position_embeddings=512,
               type_vocab_size=16,
               initializer_range=0.02):
    """Builds a config; see the module docstring for the meaning of fields.

    Args:
      vocab_size: int, size of the WordPiece vocabulary (rows of
        `bert/embeddings/word_embeddings`).
      hidden_size: int, width of every encoder layer.
      num_hidden_layers: int, number of transformer layers.
      num_attention_heads: int, heads per attention layer; must divide
        `hidden_size`.
      intermediate_size: int, width of the feed-forward layer.
      hidden_act: str, activation of the feed-forward layer (see
        `modeling.activations.get_activation`).
      hidden_dropout_prob: float in [0, 1), dropout on embeddings and on the
        outputs of attention and feed-forward blocks.
      attention_probs_dropout_prob: float in [0, 1), dropout on attention
        probabilities.
      max_position_embeddings: int, longest sequence the model accepts.
      type_vocab_size: int, number of token types (segments).
      initializer_range: float, stddev of the truncated-normal initialiser.
    """
    self.vocab_size = vocab_size
    self.hidden_size = hidden_size
    self.num_hidden_layers = num_hidden_layers
    self.num_attention_heads = num_attention_heads
    self.hidden_act = hidden_act
    self.intermediate_size = intermediate_size
    self.hidden_dropout_prob = hidden_dropout_prob
    self.attention_probs_dropout_prob = attention_probs_dropout_prob
    self.max_position_embeddings = max_position_embeddings
    self.type_vocab_size = type_vocab_size
    self.initializer_range = initializer_range

  @classmethod
  def from_dict(cls, json_object, source="bert config"):
    """Builds a config from a dict (see `check_keys` for the keys allowed;
    the released configs' unused keys are kept as attributes); missing
    fields take the defaults."""
    if not isinstance(json_object, dict):
      raise InputError("%s: expected a JSON object, got %s"
                       % (source, type(json_object).__name__))
    check_keys(list(json_object), source)
    config = cls(vocab_size=None)
    for key, value in json_object.items():
      config.__dict__[key] = value
    return config

  @classmethod
  def from_json_file(cls, json_file, validate=True, require_sizes=False):
    """Reads a bert_config.json file; bad files raise `common.InputError`.

    Args:
      json_file: path (local or any tf.io.gfile scheme).
      validate: if True (default), check the values (see `validate`).
      require_sizes: refuse a file without one of `SIZE_FIELDS` (training
        from scratch: nothing else says what the model should be); if
        False, the missing ones take the original's defaults, named in one
        warning.

    Returns:
      A `BertConfig`.
    """
    import tensorflow as tf  # gfile reads local and gs:// paths alike.
    if not tf.io.gfile.exists(json_file):
      raise InputError("%s: bert config file not found" % json_file)
    try:
      with tf.io.gfile.GFile(json_file, "r") as reader:
        text = reader.read()
    except (OSError, tf.errors.OpError) as e:
      raise InputError("%s: cannot read bert config: %s" % (json_file, e))
    except UnicodeDecodeError as e:  # GFile decodes text mode as UTF-8.
      raise InputError("%s: not a text file (not valid UTF-8 at byte %d)"
                       % (json_file, e.start))
    try:
      data = json.loads(text)
    except ValueError as e:
      raise InputError("%s: not valid JSON: %s" % (json_file, e))
    if not isinstance(data, dict):
      raise InputError("%s: expected a JSON object with the config fields"
                       % json_file)
    config = cls.from_dict(data, source=json_file)
    if "vocab_size" not in data:
      raise InputError("%s: no vocab_size (it has no default)" % json_file)
    missing = missing_sizes(data)
    defaults = ", ".join("%s=%s" % (f, getattr(config, f)) for f in missing)
    if missing and require_sizes:
      raise InputError(
          "%s: no %s; training from scratch needs the model's sizes written "
          "out (the original would silently use %s)"
          % (json_file, ", ".join(missing), defaults))
    if validate:
      config.validate(source=json_file, defaulted=missing)
    if missing:
      logging.warning("%s: no %s; using the original's default%s %s",
                      json_file, ", ".join(missing),
                      "s" if len(missing) > 1 else "", defaults)
    return config

  def to_dict(self):
    """Returns a deep copy of all fields (including unknown keys)."""
    return copy.deepcopy(self.__dict__)

  def to_json_string(self):
    """Returns the config as sorted, indented JSON (as the original writes)."""
    return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

  def to_json_file(self, json_file):
    """Writes `to_json_string()` to `json_file` atomically."""
    atomic_write_text(json_file, self.to_json_string())

  def validate(self, source="bert config", defaulted=()):
    """Checks the values; raises `common.InputError` naming source and field.

    Args:
      source: what to name in messages (e.g. the JSON file's path).
      defaulted: fields the source did not give (their defaults are named
        as such).

    Returns:
      self, so that `BertConfig.from_dict(d).validate()` chains.
    """
    for field in _INT_FIELDS:
      value = getattr(self, field, None)
      if (isinstance(value, bool) or not isinstance(value, int) or
          value <= 0):
        raise InputError("%s: %s must be a positive integer, got %r"
                         % (source, field, value))
    for field in _PROB_FIELDS:
      value = getattr(self, field, None)
      if (isinstance(value, bool) or not isinstance(value, (int, float)) or
          not 0.0 <= value < 1.0):
        raise InputError("%s: %s must be a number in [0, 1), got %r"
                         % (source, field, value))
    value = getattr(self, "initializer_range", None)
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or
        value <= 0):
      raise InputError("%s: initializer_range must be a positive number, "
                       "got %r" % (source, value))
    if self.hidden_size % self.num_attention_heads != 0:
      def given(field):
        return "%s (%d%s)" % (field, getattr(self, field),
                              ", the default: not in the file"
                              if field in defaulted else "")
      raise InputError("%s: %s is not a multiple of %s" % (
          source, given("hidden_size"), given("num_attention_heads")))
    try:
      activations.get_activation(self.hidden_act)
    except ValueError as e:
      raise InputError("%s: hidden_act: %s" % (source, e))
    return self

  def __eq__(self, other):
    return isinstance(other, BertConfig) and self.__dict__ == other.__dict__

  def __repr__(self):
    return "BertConfig(%s)" % ", ".join(
        "%s=%r" % kv for kv in sorted(self.__dict__.items()))
