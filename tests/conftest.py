"""Shared fixtures. The kernel compiles once per machine (Numba's on-disk cache)."""

from __future__ import annotations

import contextlib

import pytest

from sim.setup import make_rules


@pytest.fixture(scope="session")
def pagat():
    return make_rules("pagat")


@contextlib.contextmanager
def local_dask_cluster(workers: int):
    """A loopback Dask cluster of ``workers`` processes, one thread each (the backend's own
    default shape); yields the scheduler address."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        silence_logs=50,
    ) as c:
        yield c.scheduler_address
