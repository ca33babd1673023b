"""The golden comparisons' pairing fails on an empty or short reference."""

import pytest

from tests.golden.compare import paired


def test_equal_lengths_pair_up():
  assert list(paired(["x", "y"], [1, 2])) == [("x", 1), ("y", 2)]


@pytest.mark.parametrize("theirs", [[], [1], [1, 2, 3]])
def test_empty_or_other_length_reference_fails(theirs):
  with pytest.raises(AssertionError, match="original"):
    paired(["x", "y"], theirs, "tokens")
