"""The compiled-code cache: one folder per source version, old versions pruned."""

from __future__ import annotations

import os
from pathlib import Path

from sim import jit


def test_only_the_most_recently_used_source_versions_are_kept(tmp_path):
    olds = []
    for k in range(6):
        d = tmp_path / f"numba-{k:016x}"
        d.mkdir()
        (d / "x.nbi").write_text("cached")
        stamp = d / jit._STAMP
        stamp.write_text("")
        os.utime(stamp, (1_000_000 + k, 1_000_000 + k))  # k = 5 used last
        olds.append(d)
    other = tmp_path / "numba-not-a-version"
    other.mkdir()
    current = tmp_path / "numba-ffffffffffffffff"
    removed = jit._prune_caches(str(current), keep=4)
    # the current folder and the three most recently used old ones stay
    assert sorted(removed) == sorted(str(d) for d in olds[:3])
    assert all(d.exists() for d in olds[3:]) and not any(d.exists() for d in olds[:3])
    assert (current / jit._STAMP).exists() and other.exists()


def test_the_cache_folder_is_keyed_by_the_sources():
    d = Path(jit._source_cache_dir())
    assert d.name.startswith("numba-") and len(d.name) == len("numba-") + 16
