"""Attention probabilities of one sentence (or sentence pair) under BERT.

  tokens, ids, types = encode_text(tokenizer, "the cat sat", "it purred")
  probs = attention_maps(model, ids, types)   # [layers, heads, S, S]

Inputs follow the original's layout: [CLS] A [SEP] (B [SEP]), segment id 0
for [CLS], A and its [SEP], 1 for B and its [SEP]; a pair is truncated
longest-first to fit `max_seq_length`.
"""

import numpy as np

from tokenization.errors import InputError


def truncate_pair(tokens_a, tokens_b, max_tokens):
  """Drops trailing tokens from the longer list until both fit `max_tokens`.

  Returns:
    (tokens_a, tokens_b), new lists.
  """
  a, b = list(tokens_a), list(tokens_b)
  while len(a) + len(b) > max_tokens:
    if len(a) > len(b):
      a.pop()
    else:
      b.pop()
  return a, b


def encode_text(tokenizer, text_a, text_b=None, max_seq_length=128):
  """Tokenizes a sentence (pair) into BERT's input layout.

  Args:
    tokenizer: a FullTokenizer (tokenize, convert_tokens_to_ids).
    text_a: str, first sentence.
    text_b: optional str, second sentence.
    max_seq_length: int, maximum total tokens incl. [CLS]/[SEP].

  Returns:
    (tokens, input_ids, token_type_ids): list of str [S], int numpy [S],
    int numpy [S], with S <= max_seq_length.
  """
  tokens_a = tokenizer.tokenize(text_a)
  tokens_b = tokenizer.tokenize(text_b) if text_b else []
  if not tokens_a:
    raise InputError("--text_a=%r: no tokens after tokenization" % text_a)
  specials = 3 if tokens_b else 2
  if max_seq_length < specials + 1 + (1 if tokens_b else 0):
    raise InputError("--max_seq_length=%d: too small" % max_seq_length)
  if tokens_b:
    tokens_a, tokens_b = truncate_pair(tokens_a, tokens_b,
                                       max_seq_length - specials)
  else:
    tokens_a = tokens_a[:max_seq_length - specials]
  tokens = ["[CLS]"] + tokens_a + ["[SEP]"]
  types = [0] * len(tokens)
  if tokens_b:
    tokens += tokens_b + ["[SEP]"]
    types += [1] * (len(tokens_b) + 1)
  ids = tokenizer.convert_tokens_to_ids(tokens)
  return tokens, np.asarray(ids, np.int32), np.asarray(types, np.int32)


def attention_maps(model, input_ids, token_type_ids):
  """Runs `model` on one unpadded sequence and returns its attention.

  Args:
    model: modeling.BertModel accepting `return_attention_probs=True`.
    input_ids: int array [S].
    token_type_ids: int array [S].

  Returns:
    float32 numpy array [num_layers, num_heads, S, S]; entry [l, h, i, j]
    is how much query token i attends to key token j (rows sum to 1).
  """
  ids = np.asarray(input_ids, np.int32)[None]
  types = np.asarray(token_type_ids, np.int32)[None]
  out = model({"input_ids": ids, "input_mask": np.ones_like(ids),
               "token_type_ids": types},
              training=False, return_attention_probs=True)
  return np.stack([np.asarray(p)[0] for p in out["attention_probs"]])


def parse_index_list(flag_name, value, count):
  """Parses "all" or "0,2,5" (0-based) into a sorted list of indices.

  Negative indices count from the end ("-1" = last).

  Raises:
    InputError: non-integer or out-of-range entries.
  """
  if value is None or str(value).strip().lower() in ("", "all"):
    return list(range(count))
  chosen = []
  for part in str(value).split(","):
    part = part.strip()
    try:
      i = int(part)
    except ValueError:
      raise InputError("--%s=%s: %r is not an integer (use e.g. 0,3,-1 or "
                       "all)" % (flag_name, value, part)) from None
    if not -count <= i < count:
      raise InputError("--%s=%s: index %d out of range, the model has %d"
                       % (flag_name, value, i, count))
    chosen.append(i % count)
  return sorted(set(chosen))
