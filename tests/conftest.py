"""Shared fixtures. The kernel compiles once per machine (Numba's on-disk cache)."""

from __future__ import annotations

import pytest

from sim.rules import make_rules


@pytest.fixture(scope="session")
def pagat():
    return make_rules("pagat")
