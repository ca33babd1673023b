"""Fuzzing: random bytes and random Unicode corpora never crash or hang.

Every corpus either yields valid instances or a clear InputError ("no text");
No Hypothesis deadline (timings flake on a loaded machine).
"""

import os
import tempfile

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

import tokenization
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from tests.pretraining_data import checks
from tests.pretraining_data import corpus
from tests.pretraining_data import records

_TOKENIZER = {}


def _tokenizer():
  if "t" not in _TOKENIZER:
    _TOKENIZER["t"] = tokenization.FullTokenizer(corpus.minilm_vocab())
  return _TOKENIZER["t"]


def _run_and_check(data, max_seq_length, max_predictions, masked_lm_prob,
                   short_seq_prob, seed, whole_word):
  tok = _tokenizer()
  with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "in.txt")
    with open(path, "wb") as f:
      f.write(data)
    out = os.path.join(d, "out.tfrecord")
    opts = options_lib.DataOptions(
        max_seq_length=max_seq_length,
        max_predictions_per_seq=max_predictions,
        masked_lm_prob=masked_lm_prob, short_seq_prob=short_seq_prob,
        random_seed=seed, dupe_factor=2, do_whole_word_mask=whole_word,
        log_examples=0)
    try:
      stats = pipeline.run([path], [out], tok, opts)
    except InputError as e:
      assert "no text" in str(e)
      assert os.listdir(d) == ["in.txt"]
      return
    examples = records.read_examples(out)
    assert len(examples) == stats.instances > 0
    for ex in examples:
      checks.check_instance(ex, max_seq_length, max_predictions,
                            len(tok.vocab), tok.vocab["[CLS]"],
                            tok.vocab["[SEP]"])


_FLAGS = dict(
    max_seq_length=st.integers(5, 40),
    max_predictions=st.integers(1, 12),
    masked_lm_prob=st.floats(0.0, 1.0),
    short_seq_prob=st.floats(0.0, 1.0),
    seed=st.integers(0, 2 ** 40),
    whole_word=st.booleans())

_SETTINGS = settings(max_examples=50,
                     deadline=None,
                     suppress_health_check=[HealthCheck.too_slow],
                     derandomize=True)


@_SETTINGS
@given(data=st.lists(
    st.one_of(st.binary(max_size=60), st.just(b"\n"), st.just(b"\n\n"),
              st.sampled_from([b"\xff", b"\xc3", b"\xe4\xb8", b"\r\n",
                               b"hello world ", b"##ing", b"[CLS] [SEP]"])),
    max_size=40).map(b"".join), **_FLAGS)
def test_random_bytes(data, max_seq_length, max_predictions, masked_lm_prob,
                      short_seq_prob, seed, whole_word):
  _run_and_check(data, max_seq_length, max_predictions, masked_lm_prob,
                 short_seq_prob, seed, whole_word)


@_SETTINGS
@given(text=st.lists(
    st.one_of(st.text(max_size=40), st.just("\n\n"),
              st.sampled_from(["\u2028", "\u00a0\n", "\ufeff", "\u0301",
                               "\U0001F600", "\u4e2d\u6587", "[MASK]",
                               "un##able "])),
    max_size=40).map("".join), **_FLAGS)
def test_random_unicode(text, max_seq_length, max_predictions,
                        masked_lm_prob, short_seq_prob, seed, whole_word):
  _run_and_check(text.encode("utf-8", "surrogatepass"), max_seq_length,
                 max_predictions, masked_lm_prob, short_seq_prob, seed,
                 whole_word)


@pytest.mark.parametrize("data", [b"", b"\n" * 1000, b"x",
                                  b"\xff" * 100000, b"a\n" * 3000])
def test_degenerate_corpora(data):
  _run_and_check(data, 5, 1, 0.15, 0.1, 0, False)
