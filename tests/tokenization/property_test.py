"""Property and fuzz tests: fast path == reference path on random input.

Also the tokenizer part of issue 9: random bytes and random Unicode never
crash (other than the documented ValueError for non-string input) and never
hang (pytest-timeout in pytest.ini turns a hang into a failure; there is no
per-example deadline, which flakes on a loaded 2-core machine).
"""

import string

from hypothesis import given, settings, strategies as st
import pytest

import tokenization
from tests.tokenization.conftest import minilm_vocab_path

_SPECIALS = (
    u"\x00\t\n\r\x0b\x0c\x1c\x85\xa0\u1680\u2000\u200b\u200c\u200d\u2028"
    u"\u2029\u202f\u3000\ufeff\ufffd\u0301\u0308\u0130\u03a3\u1e9e\ufb01"
    u"\u1fef\u4e00\uf900\U00020000\U0001F600\U0001F3FD\u0e01\u0915\u094d"
    u"[]#!.,'-$^`" + string.ascii_letters + string.digits)

_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=()),  # Any code point at all.
        st.sampled_from(_SPECIALS),
        st.sampled_from(u"[unused1] "),
    ),
    max_size=60)

_TOKENIZERS = {}


def _pair(lower, preserve):
  key = (lower, preserve)
  if key not in _TOKENIZERS:
    path = minilm_vocab_path()
    _TOKENIZERS[key] = tuple(
        tokenization.FullTokenizer(path, do_lower_case=lower,
                                   preserve_unused_tokens=preserve,
                                   cache=cache, max_cache_size=1000)
        for cache in (True, False))
  return _TOKENIZERS[key]


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, lower=st.booleans(), preserve=st.booleans())
def test_fast_path_equals_reference(text, lower, preserve):
  fast, reference = _pair(lower, preserve)
  expected = reference.tokenize(text)
  assert fast.tokenize(text) == expected
  assert fast.tokenize_to_ids(text) == reference.convert_tokens_to_ids(
      expected)
  assert fast.tokenize(text.encode("utf-8", "surrogatepass")) == (
      reference.tokenize(text.encode("utf-8", "surrogatepass")))


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=200), lower=st.booleans())
def test_random_bytes_never_crash(data, lower):
  fast, reference = _pair(lower, False)
  tokens = fast.tokenize(data)
  assert tokens == reference.tokenize(data)
  assert all(t in fast.vocab for t in tokens)


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.text(alphabet=u"abc\u00e9#", min_size=1,
                              max_size=250), max_size=5))
def test_long_words_and_unk_rule(words):
  fast, reference = _pair(True, False)
  text = u" ".join(words)
  assert fast.tokenize(text) == reference.tokenize(text)
  for word in words:
    if len(word) > 200:
      assert fast.tokenize(word) == ["[UNK]"]


def test_pathological_inputs_finish():
  fast, reference = _pair(True, False)
  inputs = [u"a" * 200_000, u"!" * 50_000, u"\u4e00" * 50_000,
            u"\u200b" * 50_000, u"x\u0301" * 20_000, u"ab" * 100 + u" ",
            (u"\U0001F600" * 3 + u" ") * 10_000]
  for text in inputs:
    assert fast.tokenize(text) == reference.tokenize(text)


@pytest.mark.parametrize("bad", [None, 3, 4.5, ["a"], bytearray(b"a")])
def test_non_strings_raise_value_error(bad):
  for tok in _pair(True, False):
    with pytest.raises(ValueError, match="Unsupported string type"):
      tok.tokenize(bad)
