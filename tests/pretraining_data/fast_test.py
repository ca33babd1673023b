"""The compiled instance loop (_fast.c via fast.py) equals the Python code.

Same records byte for byte and the same generator state after, on random
documents and flags in all three masking modes (token, whole-word,
word-level with continuation marks); the Python code is the one the golden
tests compare with the original. Plus: the extension is built and passes its
self-check here, and every reason to fall back to Python does fall back.
"""

import os
import random

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import fast
from bert_tf2.pretraining_data import instances
from bert_tf2.pretraining_data import masking
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import stages
from bert_tf2.pretraining_data import word_boundaries

_VOCAB_SIZE = 60
_SUBWORDS = set(range(40, 60))  # "##" pieces.


class _Tokenizer(object):
  vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
  vocab.update({("##w%d" if i in _SUBWORDS else "w%d") % i: i
                for i in range(5, _VOCAB_SIZE)})


def _records(docs, opts, seed, compiled, monkeypatch):
  """create_records on a copy of docs; returns (records, state, stats)."""
  monkeypatch.setenv("BERT_TF2_PURE_PYTHON", "0" if compiled else "1")
  rng = random.Random(seed)
  stats = documents_lib.CorpusStats()
  records = stages.create_records([list(d) for d in docs], _Tokenizer(),
                                  opts, rng, stats)
  return records, rng.getstate(), stats.to_dict()


def test_the_extension_is_built_and_matches_this_python():
  # run_tests.sh / quickstart.sh install with `pip install -e .`, which
  # compiles it; a missing or failing extension would silently cost ~4x.
  assert fast.extension_status() == (True, "compiled")
  # ... and built from the current _fast.c (rebuild: `pip install -e .`).
  source = os.path.join(os.path.dirname(fast.__file__), "_fast.c")
  assert os.path.getmtime(fast._fast.__file__) >= os.path.getmtime(source)


_ids = st.integers(5, _VOCAB_SIZE - 1)
_documents = st.lists(
    st.lists(st.lists(_ids, min_size=0, max_size=30), min_size=1,
             max_size=8),
    min_size=1, max_size=6)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(docs=_documents, marks=st.lists(st.booleans(), min_size=30,
                                       max_size=30),
       max_seq_length=st.integers(5, 48),
       max_predictions=st.integers(0, 12),
       # 0.5 and 0.25 hit exact halves: Python's round() goes to even.
       masked_lm_prob=st.one_of(st.sampled_from([0.15, 0.25, 0.5]),
                                st.floats(0.0, 1.0)),
       short_seq_prob=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
       dupe_factor=st.integers(1, 3), seed=st.integers(0, 2 ** 40),
       mode=st.sampled_from(["tokens", "whole_words", "word_level"]))
def test_compiled_records_equal_the_python_code(
    docs, marks, max_seq_length, max_predictions, masked_lm_prob,
    short_seq_prob, dupe_factor, seed, mode):
  if mode == "word_level":  # Continuation marks as word_boundaries sets them.
    docs = [[[t | word_boundaries.CONTINUATION if marks[i] else t
              for i, t in enumerate(seg)] for seg in doc] for doc in docs]
  opts = options_lib.DataOptions(
      max_seq_length=max_seq_length, max_predictions_per_seq=max_predictions,
      masked_lm_prob=masked_lm_prob, short_seq_prob=short_seq_prob,
      dupe_factor=dupe_factor, do_whole_word_mask=mode == "whole_words",
      word_boundaries="jieba" if mode == "word_level" else "none")
  with pytest.MonkeyPatch.context() as monkeypatch:
    compiled = _records(docs, opts, seed, True, monkeypatch)
    python = _records(docs, opts, seed, False, monkeypatch)
  assert compiled[0] == python[0]
  assert compiled[1] == python[1]  # The stream continues identically.
  assert compiled[2] == python[2]  # Instance, token and mask counts.


def _opts():
  return instances.InstanceOptions(
      max_seq_length=16, short_seq_prob=0.1, masked_lm_prob=0.15,
      max_predictions_per_seq=3, cls_id=2, sep_id=3,
      masking_vocab=masking.MaskingVocab(list(range(20)), 4, set()))


def test_an_empty_random_document_fails_as_in_python(monkeypatch):
  docs = [[[5, 6]], []]  # Document 0 has one sentence: always random next.
  monkeypatch.setenv("BERT_TF2_PURE_PYTHON", "0")
  maker = fast.make_record_maker(docs, _opts(), random.Random(3))
  with pytest.raises(ValueError, match="document 1 is empty"):
    for _ in range(50):
      maker.make(0)
  with pytest.raises(ValueError, match="empty range"):
    rng = random.Random(3)
    for _ in range(50):
      instances.create_instances_from_document(docs, 0, _opts(), rng)


def test_close_hands_the_stream_back(monkeypatch):
  monkeypatch.setenv("BERT_TF2_PURE_PYTHON", "0")
  docs = [[[5, 6, 7], [8, 9]], [[10, 11], [12, 13, 14]]]
  rng = random.Random(11)
  maker = fast.make_record_maker(docs, _opts(), rng)
  before = rng.getstate()
  maker.make(0)
  assert rng.getstate() == before  # The stream is the maker's while open.
  maker.close()
  after = rng.random()
  reference = random.Random(11)
  instances.create_instances_from_document(docs, 0, _opts(), reference)
  assert after == reference.random()


@pytest.mark.parametrize("reason", ["env", "missing", "stale", "mismatch",
                                    "subclass", "big_ids"])
def test_falls_back_to_python(reason, monkeypatch):
  monkeypatch.setenv("BERT_TF2_PURE_PYTHON", "0")
  rng_class = random.Random
  docs = [[[5, 6, 7], [8, 9]], [[10, 11]]]
  if reason == "env":
    monkeypatch.setenv("BERT_TF2_PURE_PYTHON", "1")
  elif reason == "missing":
    monkeypatch.setattr(fast, "_fast", None)
  elif reason == "stale":
    monkeypatch.setattr(fast, "_ABI_VERSION", fast._ABI_VERSION + 1)
  elif reason == "mismatch":
    class _WrongDraws(object):
      ABI_VERSION = fast._ABI_VERSION

      class Maker(object):  # The real one, but shuffles come out reversed.

        def __init__(self, *args):
          self._maker = real.Maker(*args)

        def __getattr__(self, name):
          return getattr(self._maker, name)

        def draws(self, kind, n, count):
          out = self._maker.draws(kind, n, count)
          return out[::-1] if kind == 2 else out
    real = fast._fast
    monkeypatch.setattr(fast, "_fast", _WrongDraws)
    monkeypatch.setattr(fast, "_CHECKED", {})
  elif reason == "subclass":
    class _Sub(random.Random):
      pass
    rng_class = _Sub
  elif reason == "big_ids":
    docs = [[[2 ** 31, 6]]]
  usable, why = fast.extension_status()
  maker = fast.make_record_maker(docs, _opts(), rng_class(1))
  assert maker is None
  if reason in ("env", "missing", "stale", "mismatch"):
    assert not usable
    assert {"env": "BERT_TF2_PURE_PYTHON", "missing": "not built",
            "stale": "stale", "mismatch": "does not match"}[reason] in why


def test_bad_input_to_the_extension_is_a_clear_error():
  from bert_tf2.pretraining_data import _fast  # pylint: disable=g-import-not-at-top
  args = (8, 0.1, 0.15, 2, 1, 2, 3, [0, 1], [], 0)
  with pytest.raises(TypeError, match="documents must be a list"):
    _fast.Maker("not a list", *args)
  with pytest.raises(TypeError, match="a sentence must be a list"):
    _fast.Maker([[(5, 6)]], *args)
  with pytest.raises(OverflowError):
    _fast.Maker([[[-1]]], *args)
  with pytest.raises(ValueError, match="max_seq_length >= 5"):
    _fast.Maker([[[5]]], 4, *args[1:])
  maker = _fast.Maker([[[5, 6]]], *args)
  with pytest.raises(RuntimeError, match="set_state"):
    maker.make(0)
  with pytest.raises(ValueError, match="625 ints"):
    maker.set_state((1, 2, 3))
  maker.set_state(random.Random(1).getstate()[1])
  with pytest.raises(IndexError, match="out of range"):
    maker.make(1)
  with pytest.raises(TypeError, match="list of bytes"):
    _fast.frame_records([b"ok", "not bytes"])
