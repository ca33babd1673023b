"""Hypothesis fuzzing of the two files every script reads first.

Random bytes as vocab.txt and random JSON as bert_config.json must either
load or raise a clear `InputError` naming the file, never another exception
and never hang (pytest-timeout, pytest.ini, turns a hang into a failure; no
per-example deadline: timings flake on a loaded machine). The
tokenizer, TSV processors and create_pretraining_data are fuzzed in their
own areas (see docs/reliability.md).
"""

import json
import os
import tempfile

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from bert_tf2.common import InputError
import modeling
import tokenization

_VOCAB_LINES = st.lists(st.one_of(
    st.sampled_from(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##a",
                     "", " ", "##", "a b", "\t", "\u00e9", "\ufeff[UNK]"]),
    st.text(max_size=8)), max_size=30)

_VOCAB_BYTES = st.one_of(
    st.binary(max_size=200),
    _VOCAB_LINES.map(
        lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass")))


def _write(directory, data, name):
  path = os.path.join(directory, name)
  with open(path, "wb") as f:
    f.write(data)
  return path


@settings(max_examples=150, deadline=None)
@given(data=_VOCAB_BYTES, text=st.text(max_size=60), lower=st.booleans())
@example(data=b"\x00", text="0", lower=False)  # No [UNK]: documented error.
@example(data=b"[UNK]\n\xff\n", text="x", lower=True)
def test_random_vocab_loads_or_is_a_clear_error(data, text, lower):
  with tempfile.TemporaryDirectory() as directory:
    _check_vocab(_write(directory, data, "vocab.txt"), data, text, lower)


def _check_vocab(path, data, text, lower):
  try:
    tokenizer = tokenization.FullTokenizer(path, do_lower_case=lower)
  except InputError as e:
    assert "vocab.txt" in str(e)
    return
  pieces = tokenizer.tokenize(text)
  # A word the vocabulary cannot split becomes [UNK]; a vocabulary without
  # [UNK] (loaded with a warning, as the original) cannot convert it: a
  # clear UnknownTokenError naming the token, as documented.
  assert all(p in tokenizer.vocab or p == "[UNK]" for p in pieces)
  if "[UNK]" in pieces and "[UNK]" not in tokenizer.vocab:
    with pytest.raises(tokenization.UnknownTokenError, match="UNK"):
      tokenizer.convert_tokens_to_ids(pieces)
    return
  ids = tokenizer.convert_tokens_to_ids(pieces)
  assert all(0 <= i < len(data.splitlines()) + 1 for i in ids)


_FIELDS = ["vocab_size", "hidden_size", "num_hidden_layers",
           "num_attention_heads", "intermediate_size", "hidden_act",
           "hidden_dropout_prob", "attention_probs_dropout_prob",
           "max_position_embeddings", "type_vocab_size", "initializer_range"]
_VALUES = st.one_of(st.integers(-3, 64), st.floats(allow_nan=True),
                    st.text(max_size=5), st.none(), st.booleans(),
                    st.lists(st.integers(), max_size=2),
                    st.sampled_from(["gelu", "relu", "tanh", "linear"]))
_CONFIG_BYTES = st.one_of(
    st.binary(max_size=80),
    st.dictionaries(st.sampled_from(_FIELDS), _VALUES).map(
        lambda d: json.dumps(d).encode()),
    st.lists(st.integers(), max_size=3).map(lambda d: json.dumps(d).encode()),
)


@settings(max_examples=200, deadline=None)
@given(data=_CONFIG_BYTES)
@example(data=b"\x80")  # Not UTF-8: was a UnicodeDecodeError traceback.
@example(data=b'{"vocab_size": "12", "hidden_size": 1e400}')
def test_random_config_loads_or_is_a_clear_error(data):
  with tempfile.TemporaryDirectory() as directory:
    _check_config(_write(directory, data, "bert_config.json"))


def _check_config(path):
  try:
    config = modeling.BertConfig.from_json_file(path)
  except InputError as e:
    assert "bert_config.json" in str(e)
    return
  # Whatever loads is a usable architecture.
  assert config.vocab_size > 0 and config.num_hidden_layers > 0
  assert config.hidden_size % config.num_attention_heads == 0
  assert config.max_position_embeddings > 0 and config.type_vocab_size > 0
  assert 0 <= config.hidden_dropout_prob < 1
