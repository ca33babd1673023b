"""Compiled instance making: the same records as instances.py + writer.py.

`_fast.c` runs the per-instance loop (document -> instances -> masking ->
serialized Example) on the same Mersenne Twister as `random.Random`, taking
its state from the caller's generator and handing it back after.
`make_record_maker` returns None when the extension is not built, fails its
self-check against this Python's `random`, or BERT_TF2_PURE_PYTHON=1; the
Python code then runs (same output, slower).

Example:
  >>> import random
  >>> from bert_tf2.pretraining_data import instances, masking
  >>> opts = instances.InstanceOptions(
  ...     max_seq_length=16, short_seq_prob=0.1, masked_lm_prob=0.15,
  ...     max_predictions_per_seq=3, cls_id=2, sep_id=3,
  ...     masking_vocab=masking.MaskingVocab(list(range(20)), 4, set()))
  >>> docs = [[[5, 6, 7], [8, 9]], [[10, 11], [12, 13, 14]]]
  >>> rng = random.Random(7)
  >>> maker = make_record_maker(docs, opts, rng)
  >>> records = maker.make(0) + maker.make(1) if maker else None
  >>> maker.close()  # hands the generator state back to rng
  >>> len(records) >= 2
  True
"""

import os
import random

from absl import logging

try:
  from bert_tf2.pretraining_data import _fast
except ImportError:  # Not built (no compiler at install): Python code.
  _fast = None

_ABI_VERSION = 2  # Must equal _fast.c's ABI_VERSION.
_CHECKED = {}


def _build_problem():
  """Why the extension cannot be used at all (str), or None."""
  if os.environ.get("BERT_TF2_PURE_PYTHON") == "1":
    return "BERT_TF2_PURE_PYTHON=1"
  if _fast is None:
    return ("bert_tf2.pretraining_data._fast is not built "
            "(reinstall with `pip install -e .` and a C compiler)")
  if getattr(_fast, "ABI_VERSION", None) != _ABI_VERSION:
    return ("bert_tf2.pretraining_data._fast is stale (built from an "
            "older _fast.c): reinstall with `pip install -e .`")
  return None


def extension_status():
  """Returns (usable, reason): whether the compiled instance loop is used."""
  problem = _build_problem()
  if problem:
    return False, problem
  if "ok" not in _CHECKED:
    _CHECKED["ok"] = _self_check()
  if not _CHECKED["ok"]:
    return False, ("the compiled generator does not match this Python's "
                   "random module")
  return True, "compiled"


def record_framing():
  """`_fast.frame_records` (list of bytes -> TFRecord bytes), or None."""
  return None if _build_problem() else _fast.frame_records


def _self_check():
  """Compares the compiled generator's draws with random.Random's."""
  rng = random.Random(20181011)
  maker = _fast.Maker([[[1]]], 8, 0.1, 0.15, 2, 1, 2, 3, [0, 1], [], 0)
  maker.set_state(rng.getstate()[1])
  cases = [(0, 1, 50), (1, 1, 20), (1, 2, 20), (1, 30522, 200),
           (1, 1000003, 50), (1, 2**31 - 1, 50), (2, 300, 0), (2, 1, 0)]
  for kind, n, count in cases:
    if kind == 0:
      expected = [rng.random() for _ in range(count)]
    elif kind == 1:
      expected = [rng._randbelow(n) for _ in range(count)]  # pylint: disable=protected-access
    else:
      expected = list(range(n))
      rng.shuffle(expected)
    if maker.draws(kind, n, count) != expected:
      logging.warning("pretraining_data._fast: draws differ from random.%s; "
                      "using the Python code", ("random", "_randbelow",
                                                "shuffle")[kind])
      return False
  ok = tuple(maker.get_state()) == rng.getstate()[1]
  if not ok:
    logging.warning("pretraining_data._fast: generator state differs from "
                    "random.Random's; using the Python code")
  return ok


class RecordMaker(object):
  """Makes the records of documents on a `random.Random`'s stream; call
  `close()` (also after an error) before drawing from `rng` again."""

  def __init__(self, maker, rng):
    self._maker = maker
    self._rng = rng
    self._gauss_next = rng.getstate()[2]
    maker.set_state(rng.getstate()[1])

  def make(self, document_index):
    """The serialized Examples of one document's instances, in order."""
    return self._maker.make(document_index)

  def counts(self):
    """(instances, instance_tokens, masked_tokens) made so far."""
    return self._maker.counts()

  def close(self):
    """Hands the generator state back to `rng`."""
    self._rng.setstate((3, self._maker.get_state(), self._gauss_next))


def make_record_maker(documents, options, rng):
  """A RecordMaker for documents, or None when the Python code must run.

  Args:
    documents: list of documents (lists of lists of int ids), in their
      final order.
    options: instances.InstanceOptions.
    rng: random.Random; only exactly that class (a subclass may draw
      differently).
  """
  usable, _ = extension_status()
  if not usable or type(rng) is not random.Random:  # pylint: disable=unidiomatic-typecheck
    return None
  vocab = options.masking_vocab
  # _fast.c's modes: 0 token-level, 1 whole-word (master), 2 word-level.
  mode = 2 if options.word_level else (1 if options.do_whole_word_mask else 0)
  try:
    maker = _fast.Maker(
        documents, options.max_seq_length, options.short_seq_prob,
        options.masked_lm_prob, options.max_predictions_per_seq,
        options.cls_id, options.sep_id, vocab.mask_id, vocab.vocab_ids,
        vocab.subword_ids, mode)
  except OverflowError:  # Ids of 31 bits or more: the Python code.
    return None
  return RecordMaker(maker, rng)
