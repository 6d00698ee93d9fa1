"""The bounds-checked stage of CI (``NUMBA_BOUNDSCHECK=1``, see ``.ci/run``) checks bounds.

Numba keys its cache by the function's source, not by its own switches; if a bounds-checked run
loaded machine code compiled without the checks, the stage would check nothing (a read of
``a[5]`` on a 3-element array returned a neighbour's value). The project's cache folder is
therefore keyed by the switch too (:func:`sim.jit._source_cache_dir`). Run by the plain suite,
this test shows the two settings use different folders; run by the bounds-checked stage, it
shows that an out-of-bounds read in a compiled, cached function raises.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from sim import jit as J


@J.jit
def _read(a, i):
    return a[i]


def _folder(boundscheck: bool) -> str:
    keep = numba.config.BOUNDSCHECK
    try:
        numba.config.BOUNDSCHECK = boundscheck
        return J._source_cache_dir()
    finally:
        numba.config.BOUNDSCHECK = keep


def test_bounds_checked_and_unchecked_code_never_share_a_cache_folder():
    assert _folder(True) != _folder(False)
    assert numba.config.CACHE_DIR == _folder(bool(numba.config.BOUNDSCHECK)) or not J.CACHE


def test_an_out_of_bounds_read_raises_in_the_bounds_checked_stage():
    a = np.arange(3, dtype=np.int64)
    assert _read(a, 2) == 2
    if numba.config.BOUNDSCHECK:
        with pytest.raises(IndexError):
            _read(a, 5)
    else:  # the plain suite: the stage that checks bounds must run this test
        from pathlib import Path

        ci = (Path(__file__).parents[2] / ".ci" / "run").read_text().splitlines()
        stage = next(line for line in ci if line.startswith("NUMBA_BOUNDSCHECK=1"))
        assert "tests/core/test_boundscheck.py" in stage
