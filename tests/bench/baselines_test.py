# coding=utf-8
"""The experiment baselines of bench/baselines/ (not installed): the
bag-of-characters classifier reads Chinese, and the modules' examples run."""

import doctest

import pytest

from bench.baselines import bow_baseline
from bench.baselines import crf_baseline


def test_bag_of_characters_reads_chinese():
  # Chinese has no spaces: the word analyzer sees each review as one token,
  # so unseen reviews share no feature with training; characters do.
  train = [("这个很好用", "pos"), ("非常好看", "pos"), ("好评", "pos"),
           ("太差了", "neg"), ("质量很差", "neg"), ("差评退货", "neg")]
  dev = [("真的很好", "pos"), ("包装差", "neg")]
  test = [("好极了", "pos"), ("差劲", "neg")]
  assert bow_baseline.bow_accuracy(train, dev, analyzer="char",
                                   test=test) == (1.0, 1.0)
  assert bow_baseline.bow_accuracy(train, dev, analyzer="word") < 1.0


@pytest.mark.parametrize("module", [bow_baseline, crf_baseline],
                         ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
  result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
  assert result.failed == 0
