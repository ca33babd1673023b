"""`BertConfig`: the hyper-parameters of a BERT model (bert_config.json).

The fields, their defaults and the JSON format are those of Google's released
`bert_config.json` files. Keys this project does not know are kept (and
written back by `to_dict` / `to_json_string`), so a config round-trips.

Example:
  >>> cfg = BertConfig(vocab_size=100, hidden_size=36, num_hidden_layers=2,
  ...                  num_attention_heads=3, intermediate_size=50)
  >>> BertConfig.from_dict(cfg.to_dict()).hidden_size
  36
"""

import copy
import json

from tokenization.errors import InputError
from modeling import activations

_INT_FIELDS = ("vocab_size", "hidden_size", "num_hidden_layers",
               "num_attention_heads", "intermediate_size",
               "max_position_embeddings", "type_vocab_size")
_PROB_FIELDS = ("hidden_dropout_prob", "attention_probs_dropout_prob")


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
  def from_dict(cls, json_object):
    """Builds a config from a dict; unknown keys are kept as attributes."""
    if not isinstance(json_object, dict):
      raise InputError("bert config: expected a JSON object, got %s"
                       % type(json_object).__name__)
    config = cls(vocab_size=None)
    for key, value in json_object.items():
      config.__dict__[key] = value
    return config

  @classmethod
  def from_json_file(cls, json_file, validate=True):
    """Reads a bert_config.json file; bad files raise `common.InputError`.

    Args:
      json_file: path (local or any tf.io.gfile scheme).
      validate: if True (default), check the values (see `validate`).

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
    config = cls.from_dict(data)
    if validate:
      config.validate(source=json_file)
    return config

  def to_dict(self):
    """Returns a deep copy of all fields (including unknown keys)."""
    return copy.deepcopy(self.__dict__)

  def to_json_string(self):
    """Returns the config as sorted, indented JSON (as the original writes)."""
    return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

  def to_json_file(self, json_file):
    """Writes `to_json_string()` to `json_file` atomically."""
    from tokenization.atomic import atomic_write_text
    atomic_write_text(json_file, self.to_json_string())

  def validate(self, source="bert config"):
    """Checks the values; raises `common.InputError` naming source and field.

    Args:
      source: what to name in messages (e.g. the JSON file's path).

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
      raise InputError(
          "%s: hidden_size (%d) is not a multiple of num_attention_heads (%d)"
          % (source, self.hidden_size, self.num_attention_heads))
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
