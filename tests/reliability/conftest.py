"""One set of tiny inputs (valid and broken) per test process."""

import pytest

from tests.reliability import fixtures


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
  return fixtures.make_inputs(tmp_path_factory.mktemp("reliability_inputs"))
