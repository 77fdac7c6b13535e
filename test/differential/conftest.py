"""The `target` fixture: differential tests run once per target this machine can run."""

import pytest

from .harness import TARGETS


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest) -> str:
    return str(request.param)
