"""Model inputs: defaults as in the original, and up-front input checks."""

import tensorflow as tf

from tokenization.errors import InputError


def standardize_inputs(inputs, input_mask=None, token_type_ids=None):
  """Returns (input_ids, input_mask, token_type_ids) with defaults filled.

  Args:
    inputs: dict with "input_ids" and optional "input_mask",
      "token_type_ids" (or "segment_ids"); a tuple (ids, mask, types); or
      the input_ids Tensor [batch_size, seq_length].
    input_mask: default mask when `inputs` has none (else all ones).
    token_type_ids: default token types when `inputs` has none (else zeros).

  Example:
    >>> ids, mask, types = standardize_inputs(tf.constant([[5, 6]]))
    >>> mask.numpy().tolist(), types.numpy().tolist()
    ([[1, 1]], [[0, 0]])
  """
  if isinstance(inputs, dict):  # Extra features (labels, ...) are ignored.
    if "input_ids" not in inputs:
      raise ValueError("BertModel inputs need 'input_ids', got keys %s"
                       % sorted(inputs))
    input_ids = inputs["input_ids"]
    input_mask = inputs.get("input_mask", input_mask)
    token_type_ids = inputs.get("token_type_ids",
                                inputs.get("segment_ids", token_type_ids))
  elif isinstance(inputs, (list, tuple)):
    input_ids = inputs[0]
    if len(inputs) > 1:
      input_mask = inputs[1]
    if len(inputs) > 2:
      token_type_ids = inputs[2]
  else:
    input_ids = inputs
  input_ids = tf.convert_to_tensor(input_ids)
  if input_ids.shape.ndims != 2:
    raise ValueError("input_ids must have shape [batch_size, seq_length], "
                     "got %s" % input_ids.shape)
  if input_mask is None:
    input_mask = tf.ones_like(input_ids, dtype=tf.int32)
  if token_type_ids is None:
    token_type_ids = tf.zeros_like(input_ids, dtype=tf.int32)
  return (input_ids, tf.convert_to_tensor(input_mask),
          tf.convert_to_tensor(token_type_ids))


def encoder_inputs(features):
  """The BertModel inputs among a task's features, under BertModel's names.

  Task models (classifier, SQuAD, pretraining) all read their features
  through this: the original scripts call the token types "segment_ids";
  other keys (labels, positions, ...) are left out.

  Args:
    features: dict with int [batch_size, seq_length] "input_ids" and
      optional "input_mask" and "segment_ids" (or "token_type_ids").

  Returns:
    dict with "input_ids" and those of "input_mask", "token_type_ids"
    present.

  Example:
    >>> sorted(encoder_inputs({"input_ids": 1, "segment_ids": 2,
    ...                        "label_ids": 3}).items())
    [('input_ids', 1), ('token_type_ids', 2)]
  """
  inputs = {"input_ids": features["input_ids"]}
  if "input_mask" in features:
    inputs["input_mask"] = features["input_mask"]
  for name in ("token_type_ids", "segment_ids"):
    if name in features:
      inputs["token_type_ids"] = features[name]
      break
  return inputs


def check_sequence_length(config, seq_length, flag="max_seq_length"):
  """Raises InputError if `seq_length` exceeds config.max_position_embeddings.

  Scripts call this up front with their --max_seq_length.
  """
  if seq_length > config.max_position_embeddings:
    raise InputError(
        "--%s=%d is longer than max_position_embeddings=%d of the bert config"
        % (flag, seq_length, config.max_position_embeddings))


def check_vocab_size(config, vocab_size, flag="vocab_file", vocab_file=None,
                     config_file=None):
  """Raises InputError if a vocabulary has more entries than the model.

  Token ids >= config.vocab_size have no embedding row (the original would
  fail deep inside TensorFlow, or silently read zeros on accelerators). A
  smaller vocabulary is allowed: unused rows are harmless.

  Args:
    config: `BertConfig`.
    vocab_size: number of entries in the vocabulary file.
    flag: flag name for the message (e.g. "vocab_file").
    vocab_file, config_file: optional paths, named in the message.

  Example:
    >>> import modeling
    >>> try:
    ...   check_vocab_size(modeling.BertConfig(vocab_size=10), 11)
    ... except InputError as e:
    ...   print(e)
    --vocab_file has 11 entries but bert_config.json has vocab_size=10: the vocabulary does not belong to this model
  """
  if vocab_size <= config.vocab_size:
    return
  if vocab_file and config_file:
    raise InputError(
        "--%s=%s has %d tokens but --bert_config_file=%s has vocab_size=%d: "
        "the vocabulary does not belong to this model"
        % (flag, vocab_file, vocab_size, config_file, config.vocab_size))
  raise InputError(
      "--%s has %d entries but bert_config.json has vocab_size=%d: the "
      "vocabulary does not belong to this model"
      % (flag, vocab_size, config.vocab_size))
